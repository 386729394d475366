// The msProbe flow (docs/formats/msprobe-compare.md): rows, pairs, cells, real data on the
// engine's workers, checkers, and the first divergence from the engine's post-pass.
#include "common/compare_msprobe/flow.h"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

#include "common/base/unique_fd.h"
#include "common/compare/engine.h"
#include "common/compare_msprobe/tensor_metrics.h"
#include "common/dtype/decode.h"
#include "common/formats/msprobe_names.h"
#include "common/formats/pth_reader.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"
#include "common/layout/logical_stream.h"

namespace msit {
namespace {

struct OpenTensor {
  UniqueFd fd;
  RawDumpFile file;
  TensorDesc desc;
  std::unique_ptr<LogicalReader> reader;
};

Result<OpenTensor> open_tensor(const MsprobeSide& side, const std::string& data_name) {
  if (!is_safe_msprobe_data_name(data_name)) {
    return make_error(side.rank_dir + "/dump_tensor_data/" + data_name, Stage::kOpen,
                      "data_name is not a plain file name in the tensor directory: not opened");
  }
  std::string path = side.rank_dir + "/dump_tensor_data/" + data_name;
  OpenTensor t;
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(t.fd, open_regular_nofollow(path, &size));
  MSIT_ASSIGN_OR_RETURN(FileIdentity id, identity_of(t.fd.get(), path));
  FileSource src(t.fd.get(), path, size);
  MSIT_ASSIGN_OR_RETURN(t.file, read_pth_header(src, id));
  if (t.file.tensors.size() != 1) return make_error(path, Stage::kHeader, "expected one tensor");
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

// One real-data row: both files streamed in lockstep into msProbe's metrics.
void evaluate_tensor_row(const MsCompareResult& r, MsRow& row, ReportRow& rep) {
  const MsprobeItem& n = r.npu.items[row.npu];
  const MsprobeItem& b = r.bench.items[*row.bench];
  auto nt = open_tensor(r.npu, n.data_name);
  auto bt = nt.ok() ? open_tensor(r.bench, b.data_name) : Result<OpenTensor>(nt.error());
  if (!nt.ok() || !bt.ok()) {
    row.metrics.fill(MsCell::of_text("unsupported"));
    row.metric_message = (nt.ok() ? bt.error() : nt.error()).to_string();
    return;
  }
  MsTensorMetrics m(nt->desc.original_shape, bt->desc.original_shape, nt->desc.dtype, bt->desc.dtype);
  if (m.wants_values()) {
    constexpr size_t kChunk = size_t{1} << 16;
    std::vector<double> x(kChunk), y(kChunk);
    std::vector<std::byte> rx, ry;
    for (;;) {
      auto a = read_doubles(*nt, rx, x.data(), kChunk);
      auto c = a.ok() ? read_doubles(*bt, ry, y.data(), kChunk) : Result<size_t>(a.error());
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
  if (row.metrics[0].kind == MsCell::Kind::kNumber) rep.cosine = row.metrics[0].number;
  // RED = ||n - b|| / ||b|| for the first-divergence rule; EucDist is ||n - b||.
  if (row.metrics[1].kind == MsCell::Kind::kNumber) {
    double bn = 0;
    if (b.stats[3].kind == MsCell::Kind::kNumber) bn = b.stats[3].number;
    if (bn > 0) rep.red = row.metrics[1].number / bn;
  }
}

TensorLabel label_of(const MsprobeItem& it) {
  TensorLabel l;
  l.op = it.entry;
  MsEntryParts p = ms_entry_parts(it.entry);
  l.op_type = p.op.substr(0, p.op.find('.', p.op.find('.') + 1));
  l.role = it.state == MsState::kOutput ? TensorRole::kOutput : TensorRole::kInput;
  size_t dot = it.name.rfind('.');
  const char* tail = it.name.c_str() + dot + 1;
  l.index = static_cast<uint32_t>(std::strtoul(tail, nullptr, 10));
  l.order = it.order;
  return l;
}

}  // namespace

Result<MsCompareResult> ms_compare_files(const std::string& npu_json, const std::string& bench_json,
                                         const MsCompareOptions& o) {
  MsCompareResult r;
  MSIT_ASSIGN_OR_RETURN(r.npu, read_msprobe_side(npu_json));
  MSIT_ASSIGN_OR_RETURN(r.bench, read_msprobe_side(bench_json));
  r.mode = ms_mode_of(r.npu, r.bench);
  MsMatchOptions mo = o.match;
  mo.cross_frame = r.npu.header.framework == MsprobeFramework::kMindspore &&
                   r.bench.header.framework != MsprobeFramework::kMindspore;
  for (const MsPair& p : ms_match(r.npu.items, r.bench.items, mo)) {
    MsRow row;
    row.npu = p.npu;
    row.bench = p.bench;
    const MsprobeItem* b = p.bench ? &r.bench.items[*p.bench] : nullptr;
    if (r.mode == MsMode::kSummary) row.summary = ms_summary_cells(r.npu.items[p.npu], b);
    if (r.mode == MsMode::kTensor) row.metrics.fill(MsCell::of_text("unsupported"));
    r.rows.push_back(std::move(row));
  }
  r.report.resize(r.rows.size());
  std::vector<PairSpec> specs(r.rows.size());
  std::vector<EvalItem> items;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    r.report[i].my_label = label_of(r.npu.items[r.rows[i].npu]);
    if (r.rows[i].bench) r.report[i].golden_label = label_of(r.bench.items[*r.rows[i].bench]);
    bool files = r.mode == MsMode::kTensor && r.rows[i].bench &&
                 r.npu.items[r.rows[i].npu].data_name != "-1" && r.bench.items[*r.rows[i].bench].data_name != "-1";
    if (files) items.push_back({&specs[i], &r.report[i], true});
  }
  EngineOptions eo;
  eo.jobs = o.jobs;
  std::vector<size_t> index;
  for (const auto& it : items) index.push_back(static_cast<size_t>(it.row - r.report.data()));
  eo.custom = [&](size_t k, FileCache&) {
    size_t i = index[k];
    ReportRow rep = r.report[i];
    evaluate_tensor_row(r, r.rows[i], rep);
    return rep;
  };
  if (!items.empty()) {
    FileCache cache;
    evaluate_items(items, cache, eo);
  }
  ms_apply_checkers(r.rows, r.npu.items, r.bench.items, r.mode);
  post_pass(r.report, RowGraph::kDataFlow);
  return r;
}

}  // namespace msit
