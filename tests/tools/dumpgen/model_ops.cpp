// Toy model math for the paired GE/FX scenario (double math, per-side output rounding).
#include "tests/tools/dumpgen/model_ops.h"

#include <algorithm>
#include <cmath>

#include "tests/tools/dumpgen/gen_dtype.h"

namespace dumpgen {

std::vector<ModelOp> make_chain(int n, bool fused) {
  struct Kind {
    const char* ge;
    const char* node;
    const char* target;
  };
  static const Kind kinds[] = {{"MatMul", "mm", "aten.mm.default"},
                               {"Add", "add", "aten.add.Tensor"},
                               {"Cast", "_to_copy", "aten._to_copy.default"},
                               {"SoftmaxV2", "_softmax", "aten._softmax.default"},
                               {"Mul", "mul", "aten.mul.Tensor"},
                               {"TransData", "", ""}};
  std::vector<ModelOp> ops;
  for (int i = 0; i < n; ++i) {
    const Kind& k = kinds[i % 6];
    ModelOp op;
    op.ge_type = k.ge;
    op.ge_name = std::string(k.ge) + "_" + std::to_string(i);
    if (*k.node) {
      op.fx_node = std::string(k.node) + "_" + std::to_string(i);
      op.fx_target = k.target;
    }
    op.in_graph = op.ge_type != "TransData";
    op.file_op_name = op.ge_name;
    ops.push_back(op);
  }
  for (int i = 0; fused && i + 1 < n; ++i) {
    if (ops[i].ge_type == "Add" && ops[i + 1].ge_type == "Cast") {
      ops[i].fused_first = ops[i + 1].fused_last = true;
      ops[i].file_op_name = ops[i + 1].file_op_name = ops[i].ge_name + ops[i + 1].ge_name;
    }
  }
  return ops;
}

std::vector<ModelOp> make_llama_chain(int n) {
  struct Kind {
    const char* ge;
    const char* node;
    const char* target;
    int variant;
  };
  // One decoder block after the embedding: attention (q projection, split heads, scores
  // against a fixed K, softmax, weighted sum of a fixed V, merge heads, output projection,
  // bias) then the MLP (norm, up projection, gate, down projection).
  static const Kind block[] = {{"RmsNorm", "npu_rms_norm", "npu.npu_rms_norm.default", 0},
                               {"MatMul", "mm", "aten.mm.default", 0},
                               {"Reshape", "view", "aten.view.default", 0},
                               {"Transpose", "transpose", "aten.transpose.int", 0},
                               {"BatchMatMul", "bmm", "aten.bmm.default", 0},
                               {"SoftmaxV2", "_softmax", "aten._softmax.default", 0},
                               {"BatchMatMul", "bmm", "aten.bmm.default", 1},
                               {"Transpose", "transpose", "aten.transpose.int", 1},
                               {"Reshape", "view", "aten.view.default", 1},
                               {"MatMul", "mm", "aten.mm.default", 1},
                               {"Add", "add", "aten.add.Tensor", 0},
                               {"RmsNorm", "npu_rms_norm", "npu.npu_rms_norm.default", 1},
                               {"MatMul", "mm", "aten.mm.default", 2},
                               {"Mul", "mul", "aten.mul.Tensor", 0},
                               {"MatMul", "mm", "aten.mm.default", 3}};
  std::vector<ModelOp> ops;
  for (int i = 0; i < n; ++i) {
    Kind k = i == 0 ? Kind{"GatherV2", "embedding", "aten.embedding.default", 0} : block[(i - 1) % 15];
    ModelOp op;
    op.ge_type = k.ge;
    op.ge_name = std::string(k.ge) + "_" + std::to_string(i);
    op.fx_node = std::string(k.node) + "_" + std::to_string(i);
    op.fx_target = k.target;
    op.variant = k.variant;
    op.file_op_name = op.ge_name;
    ops.push_back(op);
  }
  return ops;
}

bool exact_op(const std::string& ge_type) {
  return ge_type == "GatherV2" || ge_type == "Reshape" || ge_type == "Transpose" || ge_type == "Cast" ||
         ge_type == "TransData";
}

Mat random_mat(Rng& rng, uint64_t rows, uint64_t cols, double scale, bool fp32) {
  Mat m{{rows, cols}, std::vector<double>(rows * cols), fp32};
  for (auto& x : m.v) x = scale * rng.normal();
  return round_to(m, fp32);
}

Mat round_to(const Mat& m, bool fp32) {
  Mat r = m;
  r.fp32 = fp32;
  for (auto& x : r.v) {
    x = fp32 ? static_cast<double>(static_cast<float>(x)) : half_to_double(float_to_half(static_cast<float>(x)));
  }
  return r;
}

Mat param_for(const ModelOp& op, int rows, int hidden, Rng& rng) {
  uint64_t r = static_cast<uint64_t>(rows), h = static_cast<uint64_t>(hidden);
  if (op.ge_type == "MatMul") return random_mat(rng, h, h, 1.0 / std::sqrt(double(h)), true);
  if (op.ge_type == "Add") {
    Mat b = random_mat(rng, 1, h, 0.1, true);
    b.shape = {h};
    return b;
  }
  if (op.ge_type == "Mul") {
    Mat s = random_mat(rng, r, h, 0.1, true);
    for (auto& x : s.v) x = static_cast<float>(x + 1.0);
    return s;
  }
  uint64_t hd = h / kHeads;
  if (op.ge_type == "GatherV2") {  // token ids: rows of the [rows, hidden] table
    Mat ids{{r}, std::vector<double>(r), true};
    for (auto& x : ids.v) x = static_cast<double>(rng.below(r));
    return ids;
  }
  if (op.ge_type == "RmsNorm") {
    Mat g = random_mat(rng, 1, h, 0.1, true);
    g.shape = {h};
    for (auto& x : g.v) x = static_cast<float>(x + 1.0);
    return g;
  }
  if (op.ge_type == "BatchMatMul" && op.variant == 0) {  // K^T [heads, hd, rows]: scores of std ~2
    Mat k = random_mat(rng, kHeads * hd, r, 2.0 / std::sqrt(double(hd)), true);
    k.shape = {kHeads, hd, r};
    return k;
  }
  if (op.ge_type == "BatchMatMul") {  // V [heads, rows, hd]
    Mat v = random_mat(rng, kHeads * r, hd, 1.0, true);
    v.shape = {kHeads, r, hd};
    return v;
  }
  return {};
}

// Row-wise view of a tensor: the last dimension is the row.
static uint64_t last_dim(const Mat& m) { return m.shape.empty() ? 1 : m.shape.back(); }

Mat op_math(const ModelOp& op, const std::vector<Mat>& ins) {
  const Mat& x = ins[0];
  uint64_t rows = x.shape[0], cols = x.shape[1];
  Mat y{x.shape, std::vector<double>(x.v.size()), true};
  if (op.ge_type == "MatMul") {
    const Mat& w = ins[1];
    for (uint64_t i = 0; i < rows; ++i)
      for (uint64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (uint64_t k = 0; k < cols; ++k) s += x.v[i * cols + k] * w.v[k * cols + j];
        y.v[i * cols + j] = s;
      }
  } else if (op.ge_type == "Add") {
    for (uint64_t i = 0; i < x.v.size(); ++i) y.v[i] = x.v[i] + ins[1].v[i % cols];
  } else if (op.ge_type == "Mul") {
    for (uint64_t i = 0; i < x.v.size(); ++i) y.v[i] = x.v[i] * ins[1].v[i];
  } else if (op.ge_type == "SoftmaxV2") {
    uint64_t c = last_dim(x), n = x.v.size() / c;
    for (uint64_t i = 0; i < n; ++i) {
      double mx = -HUGE_VAL, sum = 0;
      for (uint64_t j = 0; j < c; ++j) mx = std::max(mx, x.v[i * c + j]);
      for (uint64_t j = 0; j < c; ++j) sum += std::exp(x.v[i * c + j] - mx);
      for (uint64_t j = 0; j < c; ++j) y.v[i * c + j] = std::exp(x.v[i * c + j] - mx) / sum;
    }
  } else if (op.ge_type == "RmsNorm") {
    uint64_t c = last_dim(x), n = x.v.size() / c;
    for (uint64_t i = 0; i < n; ++i) {
      double sq = 0;
      for (uint64_t j = 0; j < c; ++j) sq += x.v[i * c + j] * x.v[i * c + j];
      double inv = 1.0 / std::sqrt(sq / static_cast<double>(c) + 1e-6);
      for (uint64_t j = 0; j < c; ++j) y.v[i * c + j] = x.v[i * c + j] * inv * ins[1].v[j];
    }
  } else if (op.ge_type == "GatherV2") {
    // Embedding lookup: ins[0] = table [V, H], ins[1] = row indices [N] (held as doubles).
    uint64_t h = last_dim(x), n = ins[1].v.size();
    y.shape = {n, h};
    y.v.assign(n * h, 0.0);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t r = static_cast<uint64_t>(ins[1].v[i]);
      for (uint64_t j = 0; j < h; ++j) y.v[i * h + j] = x.v[r * h + j];
    }
  } else if (op.ge_type == "Reshape") {
    y.v = x.v;  // [N, H] <-> [N, heads, H / heads]: same element order
    uint64_t total = x.v.size();
    if (x.shape.size() == 2) y.shape = {x.shape[0], kHeads, x.shape[1] / kHeads};
    else y.shape = {x.shape[0], total / x.shape[0]};
  } else if (op.ge_type == "Transpose") {
    // Swap the first two of three dimensions: [A, B, D] -> [B, A, D].
    uint64_t a = x.shape[0], b = x.shape[1], d = x.shape[2];
    y.shape = {b, a, d};
    for (uint64_t i = 0; i < a; ++i)
      for (uint64_t j = 0; j < b; ++j)
        for (uint64_t k = 0; k < d; ++k) y.v[(j * a + i) * d + k] = x.v[(i * b + j) * d + k];
  } else if (op.ge_type == "BatchMatMul") {
    // [B, M, K] x [B, K, N] -> [B, M, N]
    const Mat& w = ins[1];
    uint64_t b = x.shape[0], m = x.shape[1], k = x.shape[2], n = w.shape[2];
    y.shape = {b, m, n};
    y.v.assign(b * m * n, 0.0);
    for (uint64_t p = 0; p < b; ++p)
      for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) {
          double s = 0;
          for (uint64_t q = 0; q < k; ++q) s += x.v[(p * m + i) * k + q] * w.v[(p * k + q) * n + j];
          y.v[(p * m + i) * n + j] = s;
        }
  } else {
    y.v = x.v;  // Cast, TransData: values unchanged
  }
  return y;
}

Mat apply_op(const ModelOp& op, const std::vector<Mat>& ins, bool fx) {
  Mat y = op_math(op, ins);
  if (fx) return round_to(y, true);
  return round_to(y, op.ge_type == "Cast" || (op.ge_type == "TransData" && ins[0].fp32));
}

void inject_error(Mat& m, double scale, Rng& rng) {
  double sq = 0;
  for (double x : m.v) sq += x * x;
  double rms = std::sqrt(sq / std::max<size_t>(1, m.v.size()));
  for (auto& x : m.v) x += scale * rms * rng.normal();
  m = round_to(m, m.fp32);
}

double cosine(const Mat& g, const Mat& m) {
  double dot = 0, gg = 0, mm = 0;
  for (size_t i = 0; i < g.v.size(); ++i) {
    dot += g.v[i] * m.v[i];
    gg += g.v[i] * g.v[i];
    mm += m.v[i] * m.v[i];
  }
  if (gg == 0 && mm == 0) return 1.0;
  return dot / (std::max(std::sqrt(gg), 1e-8) * std::max(std::sqrt(mm), 1e-8));
}

double rel_euclid(const Mat& g, const Mat& m) {
  double d = 0, s = 0;
  for (size_t i = 0; i < g.v.size(); ++i) {
    d += (m.v[i] - g.v[i]) * (m.v[i] - g.v[i]);
    s += g.v[i] * g.v[i];
  }
  return std::sqrt(s) <= 1.1920929e-07 ? 0.0 : std::sqrt(d / s);
}

}  // namespace dumpgen
