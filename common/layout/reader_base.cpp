// Shared reader plumbing: stored-order observer bookkeeping, byte swapping, staging, and the
// plain (stored order == logical order) reader, which preads straight into the caller's buffer.
#include "common/layout/reader_base.h"

#include <algorithm>

#include "common/io/file.h"

namespace msit::layout {

Status ReaderBase::read_payload(uint64_t rel, std::byte* dst, size_t n) {
  MSIT_TRY(src_->read_at(base_ + rel, std::span<std::byte>(dst, n), Stage::kPayload));
  if (raw_observer_ && rel <= observed_ && rel + n > observed_) {
    const size_t skip = static_cast<size_t>(observed_ - rel);
    raw_observer_(std::span<const std::byte>(dst + skip, n - skip));
    observed_ = rel + n;
  }
  return ok_status();
}

Status ReaderBase::finish_observer() {
  if (finished_) return ok_status();
  finished_ = true;
  if (!raw_observer_ || observed_ >= m_.payload_size) return ok_status();
  const uint64_t left = m_.payload_size - observed_;
  RawBuffer buf;
  buf.resize(static_cast<size_t>(std::min<uint64_t>(m_.opts.chunk_bytes, left)));
  while (observed_ < m_.payload_size) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), m_.payload_size - observed_));
    MSIT_TRY(read_payload(observed_, buf.data(), n));
  }
  return ok_status();
}

void ReaderBase::swap_elements(std::byte* p, size_t n_elements) const {
  const size_t u = m_.swap_unit;
  if (u == 0) return;
  const size_t n = n_elements * (m_.elem_bytes / u);
  for (size_t i = 0; i < n; ++i, p += u) std::reverse(p, p + u);
}

Result<size_t> StagedReader::read(std::byte* out, size_t max_elements) {
  const size_t es = m_.elem_bytes;
  while (true) {
    if (stage_pos_ < stage_len_) {
      const size_t n = std::min(max_elements, stage_len_ - stage_pos_);
      std::memcpy(out, stage_.data() + stage_pos_ * es, n * es);
      stage_pos_ += n;
      return n;
    }
    if (produced_ >= m_.element_count || max_elements == 0) {
      if (produced_ >= m_.element_count) MSIT_TRY(finish_observer());
      return size_t{0};
    }
    stage_pos_ = stage_len_ = 0;
    MSIT_TRY(fill());
    if (stage_len_ == 0) return make_error(path_, Stage::kLayout, "internal: empty gather window");
    produced_ += stage_len_;
    swap_elements(stage_.data(), stage_len_);
    if (produced_ >= m_.element_count) MSIT_TRY(finish_observer());
  }
}

namespace {

// Stored order is the delivered order: pread straight into `out`, in chunk-bounded pieces.
class PlainReader final : public ReaderBase {
 public:
  using ReaderBase::ReaderBase;

  Result<size_t> read(std::byte* out, size_t max_elements) override {
    const uint64_t es = m_.elem_bytes;
    if (delivered_ >= m_.element_count) {
      MSIT_TRY(finish_observer());
      return size_t{0};
    }
    const uint64_t chunk_elems = std::max<uint64_t>(m_.opts.chunk_bytes / es, 1);
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>({max_elements, m_.element_count - delivered_, chunk_elems}));
    if (n == 0) return size_t{0};
    MSIT_TRY(read_payload(delivered_ * es, out, n * es));
    swap_elements(out, n);
    delivered_ += n;
    if (delivered_ >= m_.element_count) MSIT_TRY(finish_observer());
    return n;
  }

  bool positional() const override { return m_.swap_unit == 0 && !raw_observer_ && src_->concurrent_reads(); }

  Status read_elements_at(uint64_t first, std::byte* out, size_t n) override {
    if (!positional()) return LogicalReader::read_elements_at(first, out, n);
    if (first > m_.element_count || n > m_.element_count - first)
      return make_error(path_, Stage::kPayload, "fewer elements than the header promises");
    const uint64_t es = m_.elem_bytes;
    return src_->read_at(base_ + first * es, std::span<std::byte>(out, n * es), Stage::kPayload);
  }

 private:
  uint64_t delivered_ = 0;
};

}  // namespace

Result<std::unique_ptr<LogicalReader>> make_plain_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                         LayoutMap m) {
  return std::unique_ptr<LogicalReader>(new PlainReader(std::move(src), path, offset, std::move(m)));
}

Result<std::unique_ptr<LogicalReader>> open_reader_with(SourcePtr src, const std::string& path, const TensorDesc& t,
                                                        const LayoutOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(LayoutMap m, build_layout_map(t, path, opts));
  switch (m.kind) {
    case MapKind::kPanel: return make_panel_reader(std::move(src), path, t.payload_offset, std::move(m));
    case MapKind::kChannel: return make_channel_reader(std::move(src), path, t.payload_offset, std::move(m));
    case MapKind::kStrided: return make_strided_reader(std::move(src), path, t.payload_offset, std::move(m));
    case MapKind::kNone:
    case MapKind::kPlain: break;
  }
  return make_plain_reader(std::move(src), path, t.payload_offset, std::move(m));
}

}  // namespace msit::layout

namespace msit {

Status LogicalReader::read_elements_at(uint64_t /*first*/, std::byte* /*out*/, size_t /*n*/) {
  return make_error("", Stage::kLayout, "internal: positional read on a reader that does not offer it");
}

// The plan argument is re-derived from t (same inputs, same answer); it documents intent.
Result<std::unique_ptr<LogicalReader>> LogicalReader::open(SourcePtr src, const TensorDesc& t,
                                                           const LayoutPlan& /*plan*/) {
  const std::string path = src->path();
  return layout::open_reader_with(std::move(src), path, t, layout::LayoutOptions{});
}

Result<std::unique_ptr<LogicalReader>> LogicalReader::open(int fd, const std::string& path, const TensorDesc& t,
                                                           const LayoutPlan& plan) {
  return open(std::make_shared<FileSource>(fd, path, t.payload_offset + t.payload_size), t, plan);
}

}  // namespace msit
