// A real-data pair (docs/formats/msprobe-compare.md §5.1): both files opened without following a
// link, their elements decoded to doubles chunk by chunk and fed to MsTensorMetrics; a compacted
// side through its stored summary (§10).
#include "common/compare_msprobe/tensor_pair.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <memory>
#include <vector>

#include "common/base/unique_fd.h"
#include "common/compare/metrics.h"
#include "common/compare_msprobe/tensor_metrics.h"
#include "common/dtype/decode.h"
#include "common/formats/dump_reader.h"
#include "common/formats/msprobe_names.h"
#include "common/formats/pth_reader.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"
#include "common/layout/logical_stream.h"
#include "common/store/store_catalog.h"
#include "common/summary/summarize.h"

namespace msit {
namespace {

struct OpenTensor {
  UniqueFd fd;
  RawDumpFile file;
  TensorDesc desc;
  std::unique_ptr<LogicalReader> reader;
};

Result<OpenTensor> open_tensor(const std::string& dir, const std::string& data_name) {
  std::string path = dir + "/" + data_name;
  if (!is_safe_msprobe_data_name(data_name)) {
    return make_error(path, Stage::kOpen, "data_name is not a plain file name in the tensor directory: not opened");
  }
  OpenTensor t;
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(t.fd, open_regular_nofollow(path, &size));
  MSIT_ASSIGN_OR_RETURN(FileIdentity id, identity_of(t.fd.get(), path));
  FileSource src(t.fd.get(), path, size);
  const bool npy = data_name.size() > 4 && data_name.compare(data_name.size() - 4, 4, ".npy") == 0;
  if (npy) {
    MSIT_ASSIGN_OR_RETURN(t.file, read_npy_header(src, id));
  } else {
    MSIT_ASSIGN_OR_RETURN(t.file, read_pth_header(src, id));
  }
  if (t.file.tensors.size() != 1) return make_error(path, Stage::kHeader, "expected one tensor in the file");
  t.desc = t.file.tensors[0];
  MSIT_ASSIGN_OR_RETURN(LayoutPlan plan, plan_layout(t.desc, path));
  MSIT_ASSIGN_OR_RETURN(t.reader, LogicalReader::open(t.fd.get(), path, t.desc, plan));
  return t;
}

// Decodes up to n elements of `t` into doubles.
Result<size_t> read_doubles(OpenTensor& t, std::vector<std::byte>& raw, double* out, size_t n) {
  size_t width = dtype_info(t.desc.dtype).bits / 8;
  if (width == 0) return make_error(t.file.path, Stage::kPayload, "element type not readable as numbers");
  raw.resize(n * width);
  MSIT_ASSIGN_OR_RETURN(size_t got, t.reader->read(raw.data(), n));
  for (size_t i = 0; i < got; ++i) out[i] = decode_element(t.desc.dtype, raw.data() + i * width);
  return got;
}

// Both files at hand: msProbe's metrics over every element.
MsPairLevels evaluate_raw(OpenTensor& nt, OpenTensor& bt, MsRow& row) {
  MsPairLevels out;
  MsTensorMetrics m(nt.desc.original_shape, bt.desc.original_shape, nt.desc.dtype, bt.desc.dtype);
  if (m.wants_values()) {
    constexpr size_t kChunk = size_t{1} << 16;
    std::vector<double> x(kChunk), y(kChunk);
    std::vector<std::byte> rx, ry;
    for (;;) {
      auto a = read_doubles(nt, rx, x.data(), kChunk);
      auto c = a.ok() ? read_doubles(bt, ry, y.data(), kChunk) : Result<size_t>(a.error());
      if (!a.ok() || !c.ok()) {
        row.metric_message = (a.ok() ? c.error() : a.error()).to_string();
        break;
      }
      size_t k = std::min(*a, *c);
      if (k == 0) break;
      m.add(x.data(), y.data(), k);
    }
  }
  row.metrics = m.finish(row.metric_message);
  row.source = MetricSource::kExact;
  if (row.metrics[0].kind == MsCell::Kind::kNumber) out.cosine = row.metrics[0].number;
  return out;
}

// One side of a pair: its tensor file, or, where compact removed it, the file's stored summary.
struct PairSide {
  std::string path;
  std::optional<OpenTensor> raw;
  std::optional<TensorSummary> summary;
};

Result<PairSide> open_side(const std::string& dir, const std::string& data_name) {
  PairSide s;
  s.path = dir + "/" + data_name;
  auto t = open_tensor(dir, data_name);
  if (t.ok()) {
    s.raw = std::move(t).value();
    return s;
  }
  if (t.error().sys_errno != ENOENT) return t.error();
  auto& catalog = store::StoreCatalog::instance();
  const std::optional<store::StoredFile> stored = catalog.find(s.path);
  if (!stored) return t.error();
  const std::string& db = *stored->db;
  MSIT_ASSIGN_OR_RETURN(FileSummary fs, catalog.load(db, stored->id));
  if (fs.tensors.size() != 1) {
    return make_error(s.path, Stage::kSummary,
                      "its stored summary (" + db + ") holds " + std::to_string(fs.tensors.size()) +
                          " tensors, an msProbe tensor file one: not compared");
  }
  s.summary = std::move(fs.tensors[0]);
  return s;
}

// A raw side summarised as compact would, with the other side's sketch width and seed.
Status summarise_raw_side(PairSide& s, const TensorSummary& other) {
  StatsOptions o;
  if (other.stats.sketch) {
    o.sketch_width = other.stats.sketch->width;
    o.sketch_seed = other.stats.sketch->seed;
  }
  MSIT_ASSIGN_OR_RETURN(FileSummary fs, summarize_raw_file(s.path, o));
  if (fs.tensors.size() != 1) return make_error(s.path, Stage::kSummary, "expected one tensor in the file");
  s.summary = std::move(fs.tensors[0]);
  return ok_status();
}

uint64_t non_finite(const TensorStats& t) { return t.nan_count + t.posinf_count + t.neginf_count; }

// msProbe's cosine cell for an estimate: rounded as it rounds an exact one.
MsCell cosine_cell(double c) {
  c = ms_round12(c);
  return MsCell::of(c > 0.9999 ? ms_round6(c) : c);
}

// Summaries without every value: sketch estimates of Cosine and EucDist where both sides have
// comparable sketches and no NaN/Inf; NaN/Inf counts that differ are msProbe's "N/A" (their
// positions cannot match); anything else statistics only.
MsPairLevels estimate_summaries(const TensorSummary& n, const TensorSummary& b, MsRow& row) {
  MsPairLevels out;
  out.source = MetricSource::kStats;
  row.source = MetricSource::kStats;
  row.metrics.fill(MsCell::of_text("unsupported"));
  const TensorStats& ns = n.stats;
  const TensorStats& bs = b.stats;
  if (ns.nan_count != bs.nan_count || ns.posinf_count + ns.neginf_count != bs.posinf_count + bs.neginf_count) {
    row.metrics.fill(MsCell::of_text("N/A"));
    row.metric_message = "The position of inf or nan in NPU and bench Tensor do not match.";
    return out;
  }
  const bool sketches = ns.sketch && bs.sketch && ns.sketch->width == bs.sketch->width &&
                        ns.sketch->seed == bs.sketch->seed && ns.count == bs.count;
  if (!sketches || non_finite(ns) > 0) {
    row.metric_message = "compacted: only statistics compared (no comparable sketches, or NaN/Inf)";
    return out;
  }
  SketchEstimate e = estimate_from_sketches(bs.sketch->values, ns.sketch->values, bs.l2norm, ns.l2norm, bs.count);
  if (!e.cosine || !e.red) {
    row.metric_message = "compacted: the bench tensor is all zero, nothing to estimate";
    return out;
  }
  row.metrics[0] = cosine_cell(*e.cosine);
  row.metrics[1] = MsCell::of(*e.red * bs.l2norm);
  row.metric_message = "compacted: Cosine and EucDist estimated from the summaries' sketches";
  row.source = out.source = MetricSource::kSketch;
  out.cosine = e.cosine;
  out.red = e.red;
  return out;
}

// Two summaries (docs/formats/msprobe-compare.md §10): every value kept -> exact; equal hashes ->
// exact; sketches -> Cosine and EucDist estimated, the rest "unsupported"; else statistics only.
MsPairLevels evaluate_summaries(const TensorSummary& n, const TensorSummary& b, MsRow& row) {
  MsPairLevels out;
  DType nd = dtype_from_name(n.dtype).value_or(DType::kUnknown);
  DType bd = dtype_from_name(b.dtype).value_or(DType::kUnknown);
  MsTensorMetrics m(n.original_shape, b.original_shape, nd, bd);
  const auto& nv = n.stats.values;
  const auto& bv = b.stats.values;
  const bool same_bytes = !n.xxh3_64.empty() && n.xxh3_64 == b.xxh3_64 && n.dtype == b.dtype && n.shape == b.shape;
  row.source = MetricSource::kExact;
  if (!m.wants_values()) {
    // Empty or shapes that differ: said from the shapes alone.
  } else if (nv && bv && nv->size() == bv->size()) {
    m.add(nv->data(), bv->data(), nv->size());
  } else if (same_bytes) {
    m.add_identical(n.stats.count, n.stats.l2norm * n.stats.l2norm);
    row.source = MetricSource::kHash;
  } else {
    return estimate_summaries(n, b, row);
  }
  row.metrics = m.finish(row.metric_message);
  if (row.metrics[0].kind == MsCell::Kind::kNumber) out.cosine = row.metrics[0].number;
  out.source = row.source;
  return out;
}

}  // namespace

MsPairLevels ms_evaluate_tensor_pair(const std::string& npu_dir, const MsprobeItem& npu, const std::string& bench_dir,
                                     const MsprobeItem& bench, MsRow& row) {
  MsPairLevels out;
  auto ns = open_side(npu_dir, npu.data_name);
  auto bs = ns.ok() ? open_side(bench_dir, bench.data_name) : Result<PairSide>(ns.error());
  Status summarised = ok_status();
  if (ns.ok() && bs.ok() && (ns->summary || bs->summary)) {
    if (!ns->summary) summarised = summarise_raw_side(*ns, *bs->summary);
    if (!bs->summary) summarised = summarise_raw_side(*bs, *ns->summary);
  }
  if (!ns.ok() || !bs.ok() || !summarised.ok()) {
    row.metrics.fill(MsCell::of_text("unsupported"));
    row.metric_message = (!ns.ok() ? ns.error() : !bs.ok() ? bs.error() : summarised.error()).to_string();
    out.unreadable = true;
    return out;
  }
  out = ns->summary ? evaluate_summaries(*ns->summary, *bs->summary, row) : evaluate_raw(*ns->raw, *bs->raw, row);
  // RED = ||n - b|| / ||b||; EucDist is ||n - b||, the bench's Norm statistic ||b||.
  const MsCell& bn = bench.stats[3];
  if (!out.red && row.metrics[1].kind == MsCell::Kind::kNumber && bn.kind == MsCell::Kind::kNumber && bn.number > 0) {
    out.red = row.metrics[1].number / bn.number;
  }
  return out;
}

}  // namespace msit
