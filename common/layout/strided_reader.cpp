// Strided views (torch .pth transposes, slices, expands): logical elements in row-major order,
// gathered from a bounded cache window over the payload. Contiguous inner runs are copied in
// blocks; other strides cost one cache refill whenever an element falls outside the window.
#include <algorithm>

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
  }

 protected:
  Status fill() override {
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
    const uint64_t es = m_.elem_bytes;
    cache_at_ = p;
    cache_len_ = std::min<uint64_t>(cache_.size() / es, extent_ - p);
    return read_payload(p * es, cache_.data(), static_cast<size_t>(cache_len_ * es));
  }

  // Moves the multi-index `run` elements along the last dim, carrying into outer dims.
  void advance(uint64_t run) {
    const std::vector<uint64_t>& shape = m_.logical_shape;
    const std::vector<uint64_t>& st = m_.strides;
    size_t d = idx_.size() - 1;
    idx_[d] += run;
    pos_ += run * st[d];
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
  uint64_t extent_ = 0;  // payload elements
  RawBuffer cache_;
  uint64_t cache_at_ = 0, cache_len_ = 0;
  std::vector<uint64_t> idx_;
  uint64_t pos_ = 0;  // payload element of idx_
};

}  // namespace

Result<std::unique_ptr<LogicalReader>> make_strided_reader(SourcePtr src, const std::string& path,
                                                           uint64_t offset, LayoutMap m) {
  return std::unique_ptr<LogicalReader>(new StridedReader(std::move(src), path, offset, std::move(m)));
}

}  // namespace msit::layout
