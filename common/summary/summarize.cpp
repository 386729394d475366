// Reads one raw dump file and reduces every tensor to its summary entry, streaming.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "common/archive/archive_source.h"
#include "common/formats/dump_name.h"
#include "common/formats/dump_reader.h"
#include "common/io/derived_names.h"
#include "common/io/path_name.h"
#include "common/io/xxh3.h"
#include "common/layout/logical_stream.h"
#include "common/stats/feed_pipeline.h"
#include "common/summary/summarize.h"
#include "common/summary/summarize_internal.h"

namespace msit {
namespace {

// Elements handed to the reducer per batch: 256 KiB of float32, fits in L2.
constexpr size_t kBatchBytes = 256u << 10;
// Tensors from this size on are read on a helper thread while this one reduces (see
// common/stats/feed_pipeline.h); `compact --jobs 1` thus uses up to two cores.
constexpr uint64_t kPipelineMinBytes = 4u << 20;
constexpr size_t kPipelineBatchBytes = 1u << 20;

// Hashes a block without interpreting it (unsupported dtypes, buffers, workspaces).
Result<std::string> hash_block(ByteSource& src, uint64_t offset, uint64_t size) {
  Xxh3 h;
  ChunkReader reader(src, offset, size);
  while (true) {
    MSIT_ASSIGN_OR_RETURN(auto chunk, reader.next());
    if (chunk.empty()) break;
    h.update(chunk);
  }
  return h.hex();
}

TensorSummary describe(const TensorDesc& t) {
  TensorSummary ts;
  ts.role = std::string(role_name(t.role));
  ts.index = t.index;
  ts.sub_index = t.sub_index;
  ts.dtype = std::string(dtype_name(t.dtype));
  ts.shape = t.shape;
  ts.format = ge_format_name(t.ge_format);
  ts.original_shape = t.original_shape.empty() ? t.shape : t.original_shape;
  return ts;
}

Status reduce_tensor(const SourcePtr& src, const TensorDesc& t, const LayoutPlan& plan, const StatsOptions& opts,
                     TensorSummary& ts) {
  MSIT_ASSIGN_OR_RETURN(auto reader, LogicalReader::open(src, t, plan));
  Xxh3 hash;  // fed by the reader, on whichever thread runs it
  reader->set_raw_observer([&hash](std::span<const std::byte> b) { hash.update(b); });
  auto reducer = TensorReducer::create(t.dtype, plan.element_count, opts, plan.logical_order_known);
  const size_t elem_bytes = dtype_info(t.dtype).bits / 8;
  FeedPipelineOptions po;
  // Pipelined: bigger batches, fewer hand-offs between the threads. Below the threshold a
  // helper thread costs more than it saves (thread start ~50 us, 4 MiB ~1 ms of work).
  const bool pipelined = plan.element_count * elem_bytes >= kPipelineMinBytes;
  po.batch_bytes = (pipelined ? kPipelineBatchBytes : kBatchBytes) / elem_bytes * elem_bytes;
  po.slots = pipelined ? 4 : 1;
  MSIT_TRY(run_feed_pipeline(
      po,
      [&](std::byte* buf, size_t cap) -> Result<size_t> {
        MSIT_ASSIGN_OR_RETURN(size_t n, reader->read(buf, cap / elem_bytes));
        return n * elem_bytes;
      },
      [&](const std::byte* buf, size_t bytes) { reducer->update(buf, bytes / elem_bytes); }));
  ts.stats = reducer->finish();
  ts.xxh3_64 = hash.hex();
  return ok_status();
}

// A stats-only tensor (ATB stats .bin): the dumper's max/min/mean/l2norm, nothing else.
TensorSummary summarize_header_stats(const TensorDesc& t) {
  TensorSummary ts = describe(t);
  const HeaderStats& h = *t.header_stats;
  ts.count = t.logical_count();
  ts.stats.count = ts.count;
  ts.stats.max = h.max;
  ts.stats.min = h.min;
  ts.stats.mean = h.mean;
  ts.stats.l2norm = h.l2norm.value_or(0.0);
  if (h.max && h.min) ts.stats.abs_max = std::max(std::abs(*h.max), std::abs(*h.min));
  ts.stats_available = h.max || h.min || h.mean || h.l2norm;
  ts.note = ts.stats_available
                ? "statistics written by the dumper: max, min, mean, l2norm only (no counts, sketch or hash)"
                : "header-only dump: no data and no statistics";
  return ts;
}

Result<TensorSummary> summarize_tensor(const SourcePtr& src, const TensorDesc& t, const StatsOptions& opts) {
  if (t.header_stats) return summarize_header_stats(t);
  TensorSummary ts = describe(t);
  if (!reducer_supports(t.dtype)) {
    ts.stats_available = false;
    ts.count = t.logical_count();
    ts.note = "no statistics for dtype " + ts.dtype + " (metadata and hash only)";
    MSIT_ASSIGN_OR_RETURN(ts.xxh3_64, hash_block(*src, t.payload_offset, t.payload_size));
    return ts;
  }
  MSIT_ASSIGN_OR_RETURN(LayoutPlan plan, plan_layout(t, src->path()));
  ts.count = plan.element_count;
  ts.padding_included = !plan.logical_order_known;
  ts.note = plan.note;
  MSIT_TRY(reduce_tensor(src, t, plan, opts, ts));
  return ts;
}

void fill_op_info(const RawDumpFile& raw, FileSummary& s) {
  if (raw.kind != FileKind::kGeBin) return;
  OpInfo op;
  if (auto name = parse_ge_dump_name(std::string(without_archive_suffix(base_name(raw.path))))) {
    op.type = name->op_type;
    op.name = name->op_name;
    op.task_id = name->task_id;
    op.stream_id = name->stream_id;
    op.timestamp = name->timestamp;
  }
  op.dump_op_name = raw.dump_op_name;
  s.op = std::move(op);
}

}  // namespace

Result<FileSummary> summarize_source(const SourcePtr& src, const RawDumpFile& raw, const StatsOptions& opts) {
  FileSummary s;
  s.source_name = std::string(without_archive_suffix(base_name(raw.path)));
  s.source_kind = std::string(file_kind_name(raw.kind));
  s.source_size = raw.identity.size;
  s.source_mtime_ns = raw.identity.mtime_ns;
  s.created_by = created_by_string();
  fill_op_info(raw, s);
  for (const TensorDesc& t : raw.tensors) {
    if (t.role == Role::kInput || t.role == Role::kOutput) {
      MSIT_ASSIGN_OR_RETURN(TensorSummary ts, summarize_tensor(src, t, opts));
      s.tensors.push_back(std::move(ts));
    } else {
      MSIT_ASSIGN_OR_RETURN(std::string h, hash_block(*src, t.payload_offset, t.payload_size));
      s.extra_blocks.push_back({std::string(role_name(t.role)), t.index, t.payload_size, std::move(h)});
    }
  }
  return s;
}

Result<FileSummary> summarize_open_file(int fd, const RawDumpFile& raw, const StatsOptions& opts) {
  return summarize_source(std::make_shared<FileSource>(fd, raw.path, raw.identity.size), raw, opts);
}

Result<OpenedRaw> open_raw(const std::string& path) {
  OpenedRaw o;
  MSIT_ASSIGN_OR_RETURN(o.fd, open_regular_nofollow(path));
  MSIT_ASSIGN_OR_RETURN(o.identity, identity_of(o.fd.get(), path));
  MSIT_ASSIGN_OR_RETURN(o.header, read_dump_header(o.fd.get(), path, o.identity));
  return o;
}

Result<FileSummary> summarize_raw_file(const std::string& path, const StatsOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(archive::OpenedSource o, archive::open_dump_source(path));
  MSIT_ASSIGN_OR_RETURN(RawDumpFile raw, read_dump_header(*o.src, o.identity));
  return summarize_source(o.src, raw, opts);
}

}  // namespace msit
