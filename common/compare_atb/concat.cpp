// Concatenation of rank files along the first dimension that makes both sides agree (3.7).
#include "common/compare_atb/concat.h"

#include "common/archive/archive_source.h"
#include "common/compare/evaluate.h"
#include "common/compare/metrics.h"
#include "common/dtype/dtype.h"
#include "common/formats/dump_reader.h"
#include "common/layout/logical_stream.h"
#include "common/summary/summary.h"

namespace msit::atb {
namespace {

Result<FloatTensor> load_summary_values(const SourceFile& f, uint64_t budget) {
  if (f.kind != SourceKind::kSummary)
    return make_error(f.path(), Stage::kLoad, "only raw files and summaries can be loaded whole");
  MSIT_ASSIGN_OR_RETURN(FileSummary s, read_summary_file(f.path()));
  if (s.tensors.size() != 1) return make_error(f.path(), Stage::kLoad, "the summary does not hold exactly one tensor");
  const TensorSummary& t = s.tensors.front();
  if (!t.stats.values) return make_error(f.path(), Stage::kLoad, "the summary keeps statistics, not every element");
  if (t.stats.values->size() > budget) return make_error(f.path(), Stage::kLoad, "too large to load in memory");
  auto dt = dtype_from_name(t.dtype);
  FloatTensor l;
  l.dtype = dt ? *dt : DType::kFloat32;
  l.shape = t.original_shape.empty() ? t.shape : t.original_shape;
  l.data.reserve(t.stats.values->size());
  for (double v : *t.stats.values) l.data.push_back(static_cast<float>(v));
  return l;
}

}  // namespace

Result<FloatTensor> load_float_tensor(const SourceFile& f, uint64_t budget, bool summary_values) {
  if (f.kind != SourceKind::kRaw) {
    if (summary_values) return load_summary_values(f, budget);
    return make_error(f.path(), Stage::kConcat, "a summary cannot be concatenated");
  }
  MSIT_ASSIGN_OR_RETURN(archive::OpenedSource hs, archive::open_dump_source(f.path()));
  MSIT_ASSIGN_OR_RETURN(RawDumpFile raw, read_dump_header(*hs.src, hs.identity));
  if (raw.tensors.empty()) return make_error(f.path(), Stage::kLoad, "no tensor in the file");
  const TensorDesc& d = raw.tensors.front();
  MSIT_ASSIGN_OR_RETURN(LayoutPlan plan, plan_layout(d, f.path()));
  if (plan.element_count > budget) return make_error(f.path(), Stage::kLoad, "too large to load in memory");
  if (!exact_supported(d.dtype)) return make_error(f.path(), Stage::kLoad, "dtype has no float value");
  MSIT_ASSIGN_OR_RETURN(archive::OpenedSource ds, archive::open_dump_source(f.path()));
  MSIT_ASSIGN_OR_RETURN(auto reader, LogicalReader::open(std::move(ds.src), d, plan));
  FloatTensor l;
  l.dtype = d.dtype;
  l.shape = plan.logical_shape;
  l.data.resize(plan.element_count);
  size_t esize = dtype_info(d.dtype).bits / 8;
  std::vector<std::byte> buf(size_t{1} << 16);
  size_t got = 0, per = buf.size() / esize;
  while (got < l.data.size()) {
    MSIT_ASSIGN_OR_RETURN(size_t n, reader->read(buf.data(), std::min(per, l.data.size() - got)));
    if (n == 0) return make_error(f.path(), Stage::kPayload, "fewer elements than the header promises");
    elements_to_float(d.dtype, buf.data(), n, l.data.data() + got);
    got += n;
  }
  return l;
}

namespace {

uint64_t dim(const std::vector<uint64_t>& s, size_t d) { return d < s.size() ? s[d] : 1; }

// msit's rule: first d with n_o*s_o == n_s*s_s and s_o != s_s, or n_s*s_s == s_o.
std::optional<size_t> concat_dim(const std::vector<uint64_t>& self, size_t n_self, const std::vector<uint64_t>& other,
                                 size_t n_other) {
  for (size_t d = 0; d < std::min(self.size(), other.size()); ++d) {
    uint64_t s = self[d], o = other[d];
    if ((n_other * o == n_self * s && s != o) || n_self * s == o) return d;
  }
  return std::nullopt;
}

Result<FloatTensor> concatenate(std::vector<FloatTensor> parts, std::optional<size_t> d) {
  if (parts.size() == 1 || !d) return std::move(parts.front());
  uint64_t outer = 1;
  for (size_t i = 0; i < *d; ++i) outer *= dim(parts[0].shape, i);
  FloatTensor out;
  out.dtype = parts[0].dtype;
  out.shape = parts[0].shape;
  out.shape[*d] = 0;
  std::vector<uint64_t> block(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p].shape.size() != parts[0].shape.size() || outer == 0 || parts[p].data.size() % outer != 0) {
      return make_error("", Stage::kConcat, "rank tensors have different ranks or shapes");
    }
    block[p] = parts[p].data.size() / outer;
    out.shape[*d] += dim(parts[p].shape, *d);
  }
  out.data.reserve(outer * [&] {
    uint64_t s = 0;
    for (auto b : block) s += b;
    return s;
  }());
  for (uint64_t o = 0; o < outer; ++o) {
    for (size_t p = 0; p < parts.size(); ++p) {
      auto first = parts[p].data.begin() + static_cast<std::ptrdiff_t>(o * block[p]);
      out.data.insert(out.data.end(), first, first + static_cast<std::ptrdiff_t>(block[p]));
    }
  }
  return out;
}

void side_cells(ReportRow& r, bool golden, const FloatTensor& l, const SideStats& s) {
  (golden ? r.golden_dtype : r.my_dtype) = CellDType{l.dtype};
  (golden ? r.golden_shape : r.my_shape) = shape_cell(l.shape);
  (golden ? r.golden_max : r.my_max) = s.max;
  (golden ? r.golden_min : r.my_min) = s.min;
  (golden ? r.golden_mean : r.my_mean) = s.mean;
}

}  // namespace

void evaluate_floats(const FloatTensor& g, const FloatTensor& m, ReportRow& r) {
  bool paired = g.data.size() == m.data.size();
  PairAccumulator acc;  // one pass for both sides' cells and the metrics
  SideAccumulator ga, ma;
  if (paired) {
    acc.add(g.data.data(), m.data.data(), g.data.size());
  } else {
    ga.add(g.data.data(), g.data.size());
    ma.add(m.data.data(), m.data.size());
  }
  SideStats gs = paired ? acc.golden().finish() : ga.finish(), ms = paired ? acc.mine().finish() : ma.finish();
  side_cells(r, true, g, gs);
  side_cells(r, false, m, ms);
  r.compare_mode = MetricSource::kExact;
  bool g_bad = gs.nan + gs.posinf + gs.neginf > 0, m_bad = ms.nan + ms.posinf + ms.neginf > 0;
  r.fail_reason = msit_reasons(!paired, g_bad, m_bad);
  if (r.fail_reason != FailReason::kNone) {
    r.verdict = (m_bad && !g_bad && paired) ? Verdict::kFail : Verdict::kSkip;
    return;
  }
  MetricValues v = acc.exact().finish();
  r.cosine = v.cosine, r.max_rel = v.max_rel, r.mean_rel = v.mean_rel, r.max_abs = v.max_abs;
  r.mean_abs = v.mean_abs, r.kl = v.kl, r.red = v.red;
  r.verdict = v.cosine && v.max_abs ? verdict_exact(*v.cosine, *v.max_abs) : Verdict::kSkip;
}

bool evaluate_concat(const std::vector<SourceFile>& golden, const std::vector<SourceFile>& mine, ReportRow& r,
                     std::string& why) {
  std::vector<FloatTensor> gp, mp;
  for (auto* side : {&golden, &mine}) {
    uint64_t budget = kMaxConcatElements;
    for (const auto& f : *side) {
      auto l = load_float_tensor(f, budget, false);
      if (!l.ok()) {
        why = l.error().to_string();
        return false;
      }
      budget -= l->data.size();
      (side == &golden ? gp : mp).push_back(std::move(l).value());
    }
  }
  auto gd = concat_dim(gp[0].shape, gp.size(), mp[0].shape, mp.size());
  auto md = concat_dim(mp[0].shape, mp.size(), gp[0].shape, gp.size());
  auto g = concatenate(std::move(gp), gd), m = concatenate(std::move(mp), md);
  if (!g.ok() || !m.ok()) {
    why = (!g.ok() ? g.error() : m.error()).message;
    return false;
  }
  evaluate_floats(*g, *m, r);
  return true;
}

}  // namespace msit::atb
