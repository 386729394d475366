// Weight compare, streaming: golden and dequantised weights are read in lockstep chunks; only
// weight_offset and weight_scale (per channel in practice) are held whole.
#include "common/compare_atb/weight_compare.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <optional>

#include "common/compare/engine.h"
#include "common/compare/evaluate.h"
#include "common/compare/metrics.h"
#include "common/formats/safetensors.h"
#include "common/report/csv.h"

namespace msit::atb {
namespace {

namespace fs = std::filesystem;
constexpr size_t kChunk = size_t{1} << 16;
constexpr uint64_t kMaxQuantParams = uint64_t{1} << 26;  // offset/scale elements held in memory

std::vector<std::string> safetensors_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string n = it->path().filename().string();
    // Anything but a directory is listed: a FIFO, device or symlink under the name is then
    // refused by name when it is opened (regular files only, never followed), not skipped.
    if (n.size() > 12 && n.ends_with(".safetensors") && !it->is_directory(ec)) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool has_bin_files(const std::string& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".bin" && it->is_regular_file(ec)) return true;
  }
  return false;
}

// Python's str.replace: every occurrence.
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

struct Located {
  const SafetensorsIndex* idx = nullptr;
  const SafetensorsEntry* e = nullptr;
};

Located locate(const std::vector<SafetensorsIndex>& files, const std::string& name) {
  for (const auto& f : files)
    if (const auto* e = f.find(name)) return {&f, e};
  return {};
}

Result<std::vector<float>> load_whole(const Located& l) {
  if (l.e->count > kMaxQuantParams)
    return make_error(l.idx->path, Stage::kWeight, l.e->name + ": too large to hold in memory");
  std::vector<std::byte> raw(l.e->size);
  MSIT_TRY(read_safetensors_elements(*l.idx, *l.e, 0, l.e->count, raw.data()));
  std::vector<float> v(l.e->count);
  if (!elements_to_float(l.e->dtype, raw.data(), v.size(), v.data()))
    return make_error(l.idx->path, Stage::kWeight, "dtype has no float value");
  return v;
}

// Element strides of `shape` right-aligned into `out` dims, 0 where broadcast; nullopt when the
// shapes do not broadcast onto `out`.
std::optional<std::vector<uint64_t>> broadcast_strides(const std::vector<uint64_t>& shape,
                                                       const std::vector<uint64_t>& out) {
  if (shape.size() > out.size()) return std::nullopt;
  std::vector<uint64_t> st(out.size(), 0);
  uint64_t s = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t d = shape.size() - 1 - i, o = out.size() - 1 - i;
    if (shape[d] != out[o] && shape[d] != 1) return std::nullopt;
    st[o] = shape[d] == 1 ? 0 : s;
    s *= shape[d];
  }
  return st;
}

// torch's type promotion of (int8 - offset) * scale, for the dtype cell.
DType promoted(DType off, DType scale) {
  auto is_float = [](DType t) { return dtype_info(t).kind == DTypeKind::kFloat; };
  DType step = is_float(off) ? off : DType::kInt64;
  if (!is_float(scale)) return step;
  if (!is_float(step) || step == scale) return scale;
  if (step == DType::kFloat64 || scale == DType::kFloat64) return DType::kFloat64;
  return DType::kFloat32;  // f16 with bf16, or either with f32
}

struct Sides {
  PairAccumulator pair;  // lockstep: both sides and the metrics in one pass
  SideAccumulator g, m;  // otherwise
};

// Dequantises my weight chunk by chunk (float32 arithmetic) and feeds both sides.
Status stream(const Located& g, const Located& w, const std::vector<float>& off, const std::vector<uint64_t>& off_st,
              const std::vector<float>& sc, const std::vector<uint64_t>& sc_st, bool lockstep, Sides& s) {
  const auto& shape = w.e->shape;
  std::vector<uint64_t> coord(shape.size(), 0);
  std::vector<std::byte> graw(kChunk * 8), wraw(kChunk);
  std::vector<float> gv(kChunk), mv(kChunk);
  for (uint64_t first = 0; first < w.e->count; first += kChunk) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, w.e->count - first));
    MSIT_TRY(read_safetensors_elements(*w.idx, *w.e, first, n, wraw.data()));
    for (size_t i = 0; i < n; ++i) {
      uint64_t oi = 0, si = 0;
      for (size_t d = 0; d < coord.size(); ++d) oi += coord[d] * off_st[d], si += coord[d] * sc_st[d];
      float x = static_cast<float>(static_cast<int8_t>(wraw[i])) - off[oi];
      mv[i] = x * sc[si];
      for (size_t d = coord.size(); d-- > 0;) {
        if (++coord[d] < shape[d]) break;
        coord[d] = 0;
      }
    }
    if (!lockstep) {
      s.m.add(mv.data(), n);
      continue;
    }
    MSIT_TRY(read_safetensors_elements(*g.idx, *g.e, first, n, graw.data()));
    elements_to_float(g.e->dtype, graw.data(), n, gv.data());
    s.pair.add(gv.data(), mv.data(), n);
  }
  return ok_status();
}

Status golden_only(const Located& g, SideAccumulator& acc) {
  std::vector<std::byte> raw(kChunk * 8);
  std::vector<float> v(kChunk);
  for (uint64_t first = 0; first < g.e->count; first += kChunk) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, g.e->count - first));
    MSIT_TRY(read_safetensors_elements(*g.idx, *g.e, first, n, raw.data()));
    elements_to_float(g.e->dtype, raw.data(), n, v.data());
    acc.add(v.data(), n);
  }
  return ok_status();
}

// str(tensor.dtype) of the tensor safetensors loads (bf16 stays bf16, unlike GE/ATB dumps).
CellDType dtype_cell(DType t) { return CellDType{t, CellDType::Naming::kTorchOwn}; }

void fill_side(ReportRow& r, bool golden, DType t, const std::vector<uint64_t>& shape, const SideStats& s) {
  (golden ? r.golden_dtype : r.my_dtype) = dtype_cell(t);
  (golden ? r.golden_shape : r.my_shape) = shape_cell(shape);
  (golden ? r.golden_max : r.my_max) = s.max;
  (golden ? r.golden_min : r.my_min) = s.min;
  (golden ? r.golden_mean : r.my_mean) = s.mean;
}

Result<ReportRow> compare_weight(const Located& g, const Located& w, const Located& o, const Located& sc) {
  ReportRow r;
  r.golden_data_path = g.idx->path;
  r.my_data_path = w.idx->path;
  auto off_st = broadcast_strides(o.e->shape, w.e->shape), sc_st = broadcast_strides(sc.e->shape, w.e->shape);
  if (!off_st || !sc_st) {
    r.verdict = Verdict::kError;
    r.note = "weight_offset " + shape_cell(o.e->shape) + " / weight_scale " + shape_cell(sc.e->shape) +
             " do not broadcast onto the weight " + shape_cell(w.e->shape) + ": not compared";
    return r;
  }
  if (!exact_supported(g.e->dtype)) {
    r.verdict = Verdict::kError;
    r.note = "golden dtype " + g.e->dtype_text + " has no float value: not compared";
    return r;
  }
  MSIT_ASSIGN_OR_RETURN(auto off, load_whole(o));
  MSIT_ASSIGN_OR_RETURN(auto scale, load_whole(sc));
  bool lockstep = g.e->count == w.e->count;
  Sides s;
  MSIT_TRY(stream(g, w, off, *off_st, scale, *sc_st, lockstep, s));
  if (!lockstep) MSIT_TRY(golden_only(g, s.g));
  SideStats gs = lockstep ? s.pair.golden().finish() : s.g.finish();
  SideStats ms = lockstep ? s.pair.mine().finish() : s.m.finish();
  fill_side(r, true, g.e->dtype, g.e->shape, gs);
  fill_side(r, false, promoted(o.e->dtype, sc.e->dtype), w.e->shape, ms);
  r.compare_mode = MetricSource::kExact;
  bool g_bad = gs.nan + gs.posinf + gs.neginf > 0, m_bad = ms.nan + ms.posinf + ms.neginf > 0;
  r.fail_reason = msit_reasons(!lockstep, g_bad, m_bad);
  if (r.fail_reason != FailReason::kNone) {
    r.verdict = m_bad && !g_bad && lockstep ? Verdict::kFail : Verdict::kSkip;
    return r;
  }
  MetricValues v = s.pair.exact().finish();
  r.cosine = v.cosine, r.max_rel = v.max_rel, r.mean_rel = v.mean_rel, r.max_abs = v.max_abs;
  r.mean_abs = v.mean_abs, r.kl = v.kl, r.red = v.red;
  r.verdict = v.cosine && v.max_abs ? verdict_exact(*v.cosine, *v.max_abs) : Verdict::kSkip;
  return r;
}

}  // namespace

namespace {

// One golden weight and my int8 weight with its offset and scale: a pair for the evaluator.
struct WeightPair {
  Located golden, weight, offset, scale;
};

// The weight's own name as the file names it; the module is the name without ".weight"
// (safetensors holds no class name: the type is the tensor's kind).
TensorLabel weight_label(const std::string& name, uint64_t order) {
  TensorLabel l;
  l.op = name;
  l.op_type = "weight";
  l.order = order;
  return l;
}

}  // namespace

Result<WeightCompareResult> run_weight_compare(const std::string& golden_dir, const std::string& my_dir,
                                               bool msit_compat, unsigned jobs) {
  auto gfiles = safetensors_files(golden_dir), mfiles = safetensors_files(my_dir);
  if (gfiles.empty()) {
    return make_error(golden_dir, Stage::kWeight,
                      has_bin_files(golden_dir) ? "only .bin weights (torch.save of a state dict, which msit also "
                                                  "reads): not supported, convert them to .safetensors"
                                                : "no .safetensors file in the directory");
  }
  if (mfiles.empty()) return make_error(my_dir, Stage::kWeight, "no .safetensors file in the directory");
  if (msit_compat) mfiles.resize(1);
  std::vector<SafetensorsIndex> mine;
  for (const auto& f : mfiles) {
    MSIT_ASSIGN_OR_RETURN(auto idx, read_safetensors_index(f));
    mine.push_back(std::move(idx));
  }
  // The pair list (golden indexes kept: the pairs point into them).
  WeightCompareResult res;
  std::deque<SafetensorsIndex> golden;
  std::vector<WeightPair> pairs;
  for (const auto& f : gfiles) {
    MSIT_ASSIGN_OR_RETURN(auto idx, read_safetensors_index(f));
    const SafetensorsIndex& gidx = golden.emplace_back(std::move(idx));
    for (const auto& e : gidx.entries) {
      if (!e.name.ends_with("weight")) continue;
      Located w = locate(mine, e.name), o = locate(mine, replace_all(e.name, "weight", "weight_offset"));
      Located sc = locate(mine, replace_all(e.name, "weight", "weight_scale"));
      if (!w.e || w.e->dtype != DType::kInt8 || !o.e || !sc.e) {
        ++res.skipped;
        continue;
      }
      pairs.push_back(WeightPair{Located{&gidx, &e}, w, o, sc});
    }
  }
  // The one evaluator, each weight streamed on its own worker (--jobs); a file that breaks off
  // stops the compare, as before: the first failure in pair order is returned.
  FileCache cache;
  std::vector<EvalItem> items(pairs.size());
  std::vector<ReportRow> rows(pairs.size());
  std::vector<std::optional<Error>> failed(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) items[i] = EvalItem{nullptr, &rows[i], true};
  EngineOptions eo;
  eo.jobs = jobs;
  eo.custom = [&](size_t i, FileCache&) {
    const WeightPair& p = pairs[i];
    auto r = compare_weight(p.golden, p.weight, p.offset, p.scale);
    if (!r.ok()) {
      failed[i] = r.error();
      return ReportRow{};
    }
    ReportRow row = std::move(r).value();
    row.golden_label = weight_label(p.golden.e->name, i);
    row.my_label = weight_label(p.weight.e->name, i);
    return row;
  };
  evaluate_items(items, cache, eo);
  for (auto& f : failed)
    if (f) return *f;
  post_pass(rows, RowGraph::kIndependent);
  for (size_t i = 0; i < pairs.size(); ++i) res.rows.push_back(WeightRow{pairs[i].golden.e->name, std::move(rows[i])});
  return res;
}

std::string weight_report_csv(const std::vector<WeightRow>& rows, bool extra) {
  std::string out =
      "weight_name,golden_dtype,golden_shape,golden_max_value,golden_min_value,golden_mean_value,my_dtype,"
      "my_shape,my_max_value,my_min_value,my_mean_value,cosine_similarity,max_relative_error,"
      "mean_relative_error,max_absolute_error,mean_absolute_error,kl_divergence,relative_euclidean_distance";
  out += extra ? ",golden_data_path,my_data_path,cmp_fail_reason,verdict,note\n" : "\n";
  auto text = [&](const std::string& t) { out += "," + csv_quote(guard_text_cell(t)); };
  auto real = [&](const std::optional<double>& v) { out += "," + float_cell(v); };
  for (const auto& w : rows) {
    const ReportRow& r = w.row;
    out += csv_quote(guard_text_cell(w.weight_name));
    text(std::string(dtype_cell_text(r.golden_dtype))), text(r.golden_shape), real(r.golden_max), real(r.golden_min),
        real(r.golden_mean);
    text(std::string(dtype_cell_text(r.my_dtype))), text(r.my_shape), real(r.my_max), real(r.my_min), real(r.my_mean);
    for (const auto* m : {&r.cosine, &r.max_rel, &r.mean_rel, &r.max_abs, &r.mean_abs, &r.kl, &r.red}) real(*m);
    if (extra)
      text(r.golden_data_path), text(r.my_data_path), text(msit_reason_cell(r)),
          text(std::string(verdict_name(r.verdict))), text(r.note);
    out += "\n";
  }
  return out;
}

}  // namespace msit::atb
