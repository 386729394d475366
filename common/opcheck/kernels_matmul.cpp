// MatMul, BatchMatMul and Linear recomputed through BLAS (cblas_dgemm) in float64, blocked over
// output columns and rows so no more than the memory budget is held (docs/opcheck.md "Memory").
#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "common/opcheck/bounds.h"
#include "common/opcheck/kernels.h"
#include "common/opcheck/values.h"

namespace msit::opcheck::detail {
namespace {

struct Geometry {
  uint64_t m = 0, k = 0, n = 0;
  std::vector<uint64_t> batch, a_batch, b_batch;  // output batch dims and the inputs' (padded)
  bool ta = false, tb = false;
};

Result<Skip> geometry(const Kernel& k, const TensorValues& a, const TensorValues& b, Geometry& g) {
  const OpCall& c = k.call;
  auto da = a.shape(), db = b.shape();
  g.ta = c.params.transpose_a;
  g.tb = c.params.transpose_b;
  if (c.kind == OpKind::kLinear) {  // x [..., K] against weight [N, K]: rows are every leading index
    if (da.empty() || db.size() != 2)
      return skip(SkipReason::kShapeMismatch, "linear needs x [..., K] and weight [N, K]");
    const uint64_t kk = da.back();
    da = {kk ? a.count() / kk : 0, kk};
  }
  if (da.size() < 2 || db.size() < 2) return skip(SkipReason::kShapeMismatch, "matmul inputs need two dims or more");
  if (c.kind == OpKind::kMatMul && (da.size() != 2 || db.size() != 2))
    return skip(SkipReason::kShapeMismatch,
                "MatMul inputs must be 2-D, got " + dims_text(da) + " and " + dims_text(db));
  const size_t ra = da.size(), rb = db.size();
  g.m = g.ta ? da[ra - 1] : da[ra - 2];
  g.k = g.ta ? da[ra - 2] : da[ra - 1];
  g.n = g.tb ? db[rb - 2] : db[rb - 1];
  const uint64_t kb = g.tb ? db[rb - 1] : db[rb - 2];
  if (kb != g.k) return skip(SkipReason::kShapeMismatch, "inner dims differ: " + dims_text(da) + " x " + dims_text(db));
  std::vector<uint64_t> ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  const size_t r = std::max(ba.size(), bb.size());
  ba.insert(ba.begin(), r - ba.size(), 1);
  bb.insert(bb.begin(), r - bb.size(), 1);
  for (size_t i = 0; i < r; ++i) {
    if (ba[i] != bb[i] && ba[i] != 1 && bb[i] != 1)
      return skip(SkipReason::kShapeMismatch, "batch dims do not broadcast: " + dims_text(da) + " x " + dims_text(db));
    g.batch.push_back(std::max(ba[i], bb[i]));
  }
  g.a_batch = ba;
  g.b_batch = bb;
  const uint64_t want = numel(g.batch) * g.m * g.n;
  if (k.sinks[0]->count() != want)
    return skip(SkipReason::kShapeMismatch, "output has " + std::to_string(k.sinks[0]->count()) + " elements, " +
                                                dims_text(da) + " x " + dims_text(db) + " gives " +
                                                std::to_string(want));
  return ran();
}

// Batch index of an operand for output batch ob (broadcast dims repeat index 0).
uint64_t operand_batch(const std::vector<uint64_t>& out, const std::vector<uint64_t>& in, uint64_t ob) {
  uint64_t idx = 0, mul = 1;
  for (size_t d = out.size(); d-- > 0;) {
    const uint64_t i = ob % out[d];
    ob /= out[d];
    if (in[d] != 1) idx += i * mul;
    mul *= in[d];
  }
  return idx;
}

// Reads the block rows [r0, r1) x cols [c0, c1) of the row-major rows x cols matrix at `base`.
Status read_block(TensorValues& v, uint64_t base, uint64_t cols, uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1,
                  std::vector<double>& out) {
  const uint64_t w = c1 - c0;
  out.resize((r1 - r0) * w);
  if (c0 == 0 && c1 == cols) return v.read_range(base + r0 * cols, out);
  for (uint64_t r = r0; r < r1; ++r) {
    MSIT_TRY(v.read_range(base + r * cols + c0, std::span<double>(out.data() + (r - r0) * w, w)));
  }
  return ok_status();
}

void absolute(const std::vector<double>& in, std::vector<double>& out) {
  out.resize(in.size());
  std::transform(in.begin(), in.end(), out.begin(), [](double x) { return std::fabs(x); });
}

// One block: rows [r0, r1) of op(A) against the panel of op(B) columns [n0, n0 + wn) held in
// bp/bpa; products and their magnitudes by BLAS, then bounds, then the dumped values.
struct Block {
  const Geometry& g;
  uint64_t a_base, out_base, n0, wn;
  const std::vector<double>& bp;
  const std::vector<double>& bpa;
  const std::vector<double>& bias;
  double gamma;
};

struct Scratch {
  std::vector<double> ap, apa, cm, sm, bound;
};

Status run_block(const Block& blk, uint64_t r0, uint64_t r1, TensorValues& a, OutputSink& out, Scratch& s) {
  const Geometry& g = blk.g;
  const uint64_t wr = r1 - r0, wn = blk.wn;
  if (g.ta) MSIT_TRY(read_block(a, blk.a_base, g.m, 0, g.k, r0, r1, s.ap));  // K x wr
  else MSIT_TRY(read_block(a, blk.a_base, g.k, r0, r1, 0, g.k, s.ap));       // wr x K
  absolute(s.ap, s.apa);
  s.cm.assign(wr * wn, 0);
  s.sm.assign(wr * wn, 0);
  if (g.k > 0) {
    const auto ta = g.ta ? CblasTrans : CblasNoTrans, tb = g.tb ? CblasTrans : CblasNoTrans;
    const auto lda = static_cast<int>(g.ta ? wr : g.k), ldb = static_cast<int>(g.tb ? g.k : wn);
    const auto mi = static_cast<int>(wr), ni = static_cast<int>(wn), ki = static_cast<int>(g.k);
    cblas_dgemm(CblasRowMajor, ta, tb, mi, ni, ki, 1.0, s.ap.data(), lda, blk.bp.data(), ldb, 0.0, s.cm.data(), ni);
    cblas_dgemm(CblasRowMajor, ta, tb, mi, ni, ki, 1.0, s.apa.data(), lda, blk.bpa.data(), ldb, 0.0, s.sm.data(), ni);
  }
  s.bound.resize(wr * wn);
  for (uint64_t i = 0; i < wr; ++i) {
    for (uint64_t j = 0; j < wn; ++j) {
      double& v = s.cm[i * wn + j];
      double& mag = s.sm[i * wn + j];
      if (!blk.bias.empty()) v += blk.bias[blk.n0 + j], mag += std::fabs(blk.bias[blk.n0 + j]);
      s.bound[i * wn + j] = with_rounding(v, blk.gamma * mag, out.dtype());
    }
    const uint64_t first = blk.out_base + (r0 + i) * g.n + blk.n0;
    MSIT_TRY(out.feed_at(first, std::span<const double>(s.cm.data() + i * wn, wn),
                         std::span<const double>(s.bound.data() + i * wn, wn)));
  }
  return ok_status();
}

}  // namespace

Result<Skip> run_matmul(const Kernel& k) {
  const OpCall& c = k.call;
  const size_t need = c.params.has_bias ? 3 : 2;
  if (c.inputs.size() < need)
    return skip(SkipReason::kMissingInput, "the op needs " + std::to_string(need) + " inputs");
  MSIT_ASSIGN_OR_RETURN(auto a, TensorValues::open(c.inputs[0]));
  MSIT_ASSIGN_OR_RETURN(auto b, TensorValues::open(c.inputs[1]));
  Geometry g;
  MSIT_ASSIGN_OR_RETURN(Skip s, geometry(k, *a, *b, g));
  if (s.reason != SkipReason::kNone) return s;
  std::vector<double> bias;
  if (c.params.has_bias) {
    MSIT_ASSIGN_OR_RETURN(auto bv, TensorValues::open(c.inputs[2]));
    if (bv->count() != g.n)
      return skip(SkipReason::kShapeMismatch,
                  "bias has " + std::to_string(bv->count()) + " elements, N is " + std::to_string(g.n));
    MSIT_ASSIGN_OR_RETURN(bias, bv->read_all());
  }
  // Blocks: half the budget for a panel of op(B) (and its magnitudes), half for a block of
  // op(A) rows (and magnitudes) with its products, their bounds and the dumped values.
  const uint64_t w = k.budget_elements();
  const uint64_t nb = std::clamp<uint64_t>(w / 4 / std::max<uint64_t>(g.k, 1), 1, std::max<uint64_t>(g.n, 1));
  const uint64_t rb = std::clamp<uint64_t>(w / 2 / (2 * g.k + 3 * nb), 1, std::max<uint64_t>(g.m, 1));
  if (4 * g.k * nb > w || rb * (2 * g.k + 3 * nb) > w) {
    return skip(SkipReason::kOverBudget,
                "K = " + std::to_string(g.k) + " does not fit the memory budget (raise --memory-mb)");
  }
  OutputSink& out = *k.sinks[0];
  const double gam = gamma_k(g.k + (c.params.has_bias ? 1 : 0), compute_unit(out.dtype()));
  std::vector<double> bp, bpa;
  Scratch scratch;
  for (uint64_t ob = 0; ob < numel(g.batch); ++ob) {
    const uint64_t b_base = operand_batch(g.batch, g.b_batch, ob) * g.k * g.n;
    for (uint64_t n0 = 0; n0 < g.n; n0 += nb) {
      const uint64_t n1 = std::min(g.n, n0 + nb);
      if (g.tb) MSIT_TRY(read_block(*b, b_base, g.k, n0, n1, 0, g.k, bp));  // wn x K
      else MSIT_TRY(read_block(*b, b_base, g.n, 0, g.k, n0, n1, bp));       // K x wn
      absolute(bp, bpa);
      const Block blk{g,  operand_batch(g.batch, g.a_batch, ob) * g.m * g.k, ob * g.m * g.n, n0, n1 - n0, bp, bpa, bias,
                      gam};
      for (uint64_t r0 = 0; r0 < g.m; r0 += rb) MSIT_TRY(run_block(blk, r0, std::min(g.m, r0 + rb), *a, out, scratch));
    }
  }
  return ran();
}

}  // namespace msit::opcheck::detail
