// Strided views (torch .pth transposes, slices, expands): logical elements in row-major order,
// gathered from a bounded cache window over the payload. Contiguous inner runs are copied in
// blocks. Transposed inner dims (stride 1 on the second-to-last dim) are gathered a block of
// logical rows at a time, so each cache window serves many rows; other strides cost one cache
// refill whenever an element falls outside the window.
#include <algorithm>
#include <cstdint>

#include "common/layout/reader_base.h"

namespace msit::layout {
namespace {

class StridedReader final : public StagedReader {
 public:
  StridedReader(SourcePtr src, std::string path, uint64_t offset, LayoutMap m)
      : StagedReader(std::move(src), std::move(path), offset, std::move(m)) {
    const uint64_t es = m_.elem_bytes;
    const uint64_t half = std::max<uint64_t>(m_.opts.window_bytes / 2 / es, 1);
    stage_cap_ = static_cast<size_t>(std::min<uint64_t>(half, m_.element_count));
    stage_.resize(stage_cap_ * es);
    extent_ = m_.payload_size / es;
    cache_.resize(static_cast<size_t>(std::min<uint64_t>(half, extent_) * es));
    idx_.assign(m_.logical_shape.size(), 0);
    plan_block();
  }

 protected:
  Status fill() override {
    if (block_) return fill_block();
    const size_t es = m_.elem_bytes;
    const size_t last = idx_.size() - 1;
    const uint64_t s = m_.strides[last], len = m_.logical_shape[last];
    size_t n = 0;
    while (n < stage_cap_ && produced_ + n < m_.element_count) {
      const uint64_t run = std::min<uint64_t>(len - idx_[last], stage_cap_ - n);
      for (uint64_t k = 0; k < run;) {
        const uint64_t p = pos_ + k * s;
        MSIT_TRY(ensure_cached(p));
        const std::byte* from = cache_.data() + (p - cache_at_) * es;
        // stride 1: copy as much of the run as the window holds; else one element
        const uint64_t take = s == 1 ? std::min(run - k, cache_at_ + cache_len_ - p) : 1;
        std::memcpy(stage_.data() + (n + k) * es, from, static_cast<size_t>(take * es));
        k += take;
      }
      n += static_cast<size_t>(run);
      advance(run);
    }
    stage_len_ = n;
    return ok_status();
  }

 private:
  Status ensure_cached(uint64_t p) {
    if (p >= cache_at_ && p < cache_at_ + cache_len_) return ok_status();
    return refill(p);
  }

  // Block mode when an outer dim q has stride 1 (a transpose or permute) and one block row of
  // all inner combinations fits the stage.
  void plan_block() {
    const std::vector<uint64_t>& shape = m_.logical_shape;
    const size_t r = shape.size();
    if (m_.element_count == 0) return;
    for (size_t d = 0; d + 1 < r; ++d) {
      if (m_.strides[d] == 1 && shape[d] > 1) q_ = d;
    }
    if (q_ == SIZE_MAX || m_.strides[r - 1] == 1) return;
    inner_count_ = 1;
    inner_span_ = 0;
    for (size_t d = q_ + 1; d < r; ++d) {
      if (inner_count_ > stage_cap_ / shape[d]) return;  // shape[d] > 0 since element_count > 0
      inner_count_ *= shape[d];
      inner_span_ += (shape[d] - 1) * m_.strides[d];
    }
    block_ = inner_count_ <= stage_cap_;
  }

  // B values of the stride-1 dim q times every inner combination (dims q+1..): for each inner
  // combination the B elements are one contiguous run of the payload, scattered into the stage
  // at stride inner_count_. Runs come from the cache window when all runs of the block fit in
  // it, else each is read exactly (no amplification: bytes read = bytes delivered).
  Status fill_block() {
    const size_t es = m_.elem_bytes, r = idx_.size();
    const std::vector<uint64_t>& shape = m_.logical_shape;
    const std::vector<uint64_t>& st = m_.strides;
    const uint64_t rows = std::min<uint64_t>(shape[q_] - idx_[q_], stage_cap_ / inner_count_);
    const bool windowed = inner_span_ + rows <= cache_.size() / es;
    if (windowed && (pos_ < cache_at_ || pos_ + inner_span_ + rows > cache_at_ + cache_len_)) {
      MSIT_TRY(refill(pos_));
    }
    std::vector<uint64_t> in(r - q_ - 1, 0);
    uint64_t off = 0;
    for (uint64_t c = 0; c < inner_count_; ++c) {
      const uint64_t p = pos_ + off;
      const std::byte* from = nullptr;
      if (p >= cache_at_ && p + rows <= cache_at_ + cache_len_) {
        from = cache_.data() + (p - cache_at_) * es;
      } else {
        run_.resize(static_cast<size_t>(std::max<uint64_t>(run_.size(), rows * es)));
        MSIT_TRY(read_payload(p * es, run_.data(), static_cast<size_t>(rows * es)));
        from = run_.data();
      }
      for (uint64_t b = 0; b < rows; ++b) std::memcpy(stage_.data() + (b * inner_count_ + c) * es, from + b * es, es);
      for (size_t d = r - 1; d > q_; --d) {  // next inner combination, row-major
        uint64_t& i = in[d - q_ - 1];
        off += st[d];
        if (++i < shape[d]) break;
        off -= shape[d] * st[d];
        i = 0;
      }
    }
    stage_len_ = static_cast<size_t>(rows * inner_count_);
    idx_[q_] += rows;
    pos_ += rows;  // stride 1 on dim q
    carry(q_);
    return ok_status();
  }

  Status refill(uint64_t p) {
    const uint64_t es = m_.elem_bytes;
    cache_at_ = p;
    cache_len_ = std::min<uint64_t>(cache_.size() / es, extent_ - p);
    return read_payload(p * es, cache_.data(), static_cast<size_t>(cache_len_ * es));
  }

  // Moves the multi-index `run` elements along the last dim, carrying into outer dims.
  void advance(uint64_t run) {
    size_t d = idx_.size() - 1;
    idx_[d] += run;
    pos_ += run * m_.strides[d];
    carry(d);
  }

  // Dim d reached its end: reset it and count up the outer dims.
  void carry(size_t d) {
    const std::vector<uint64_t>& shape = m_.logical_shape;
    const std::vector<uint64_t>& st = m_.strides;
    while (idx_[d] == shape[d]) {
      pos_ -= shape[d] * st[d];
      idx_[d] = 0;
      if (d == 0) return;  // all delivered
      --d;
      ++idx_[d];
      pos_ += st[d];
    }
  }

  size_t stage_cap_ = 0;
  bool block_ = false;
  size_t q_ = SIZE_MAX;  // block mode: the stride-1 dim
  uint64_t inner_count_ = 0, inner_span_ = 0;
  RawBuffer run_;
  uint64_t extent_ = 0;  // payload elements
  RawBuffer cache_;
  uint64_t cache_at_ = 0, cache_len_ = 0;
  std::vector<uint64_t> idx_;
  uint64_t pos_ = 0;  // payload element of idx_
};

}  // namespace

Result<std::unique_ptr<LogicalReader>> make_strided_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                           LayoutMap m) {
  return std::unique_ptr<LogicalReader>(new StridedReader(std::move(src), path, offset, std::move(m)));
}

}  // namespace msit::layout
