// The production reducer: stages small batches so the SIMD kernels always start on a sketch
// block boundary, decodes non-native dtypes to double for the f64 kernel, and finishes odd
// tails with a scalar two-pass. Also the factory and the dtype support predicate.
#include "common/stats/tensor_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/stats/reducer_base.h"

namespace msit {
namespace stats_detail {

std::unique_ptr<TensorReducer> make_reference_reducer(DType dtype, const StatsOptions& opts, bool with_sketch);
namespace {

constexpr size_t kStageElements = 4096;  // also the decode batch of the generic path
constexpr size_t kScalarChunk = 2048;    // two-pass unit of the scalar fallback

std::optional<SimdSource> native_source(DType t) {
  switch (t) {
    case DType::kFloat16: return SimdSource::kF16;
    case DType::kBFloat16: return SimdSource::kBF16;
    case DType::kFloat32: return SimdSource::kF32;
    case DType::kFloat64: return SimdSource::kF64;
    default: return std::nullopt;
  }
}

class SimdReducer final : public ReducerBase {
 public:
  SimdReducer(DType dtype, const StatsOptions& opts, bool with_sketch)
      : ReducerBase(dtype, opts, with_sketch), native_(native_source(dtype)) {
    if (sketch_on()) {
      acc_.assign(2 * size_t{opts.sketch_width}, 0.0);
      sk_ = SketchState{opts.sketch_width, opts.sketch_seed, tables_->words.data(), acc_.data()};
      granule_ = opts.sketch_width;
    }
    stage_cap_ = std::max(granule_, kStageElements / granule_ * granule_);
  }

  void update(const std::byte* bytes, size_t n) override;
  TensorStats finish() override;

 private:
  void reduce(const std::byte* p, size_t n);
  void reduce_doubles(const double* xs, size_t n);
  void scalar_tail(const double* xs, size_t n, uint64_t start);

  std::optional<SimdSource> native_;
  Moments m_;
  std::vector<double> acc_;  // 2 * width, see SketchState
  SketchState sk_;
  size_t granule_ = 128;  // batches handed to reduce() start at a multiple of this
  size_t stage_cap_ = 0;
  std::vector<std::byte> stage_;
  size_t stage_n_ = 0;
  std::vector<double> decoded_;
  uint64_t pos_ = 0;  // elements reduced (always a multiple of granule_ before finish)
};

void SimdReducer::update(const std::byte* bytes, size_t n) {
  note_batch(bytes, n);
  while (n > 0) {
    if (stage_n_ == 0 && n >= granule_) {
      const size_t k = n - n % granule_;
      reduce(bytes, k);
      bytes += k * elem_bytes_;
      n -= k;
      continue;
    }
    if (stage_.empty()) stage_.resize(stage_cap_ * elem_bytes_);
    const size_t take = std::min(n, stage_cap_ - stage_n_);
    std::memcpy(stage_.data() + stage_n_ * elem_bytes_, bytes, take * elem_bytes_);
    stage_n_ += take;
    bytes += take * elem_bytes_;
    n -= take;
    if (stage_n_ == stage_cap_) {
      reduce(stage_.data(), stage_n_);
      stage_n_ = 0;
    }
  }
}

TensorStats SimdReducer::finish() {
  reduce(stage_.data(), stage_n_);
  stage_n_ = 0;
  std::vector<double> buckets;
  if (sketch_on()) {
    const uint32_t w = opts_.sketch_width;
    buckets.resize(w);
    for (uint32_t k = 0; k < w; ++k) buckets[k] = acc_[k] + acc_[k + w];
  }
  const double n = static_cast<double>(m_.n);
  const double l2 = std::sqrt(std::max(0.0, m_.m2) + n * m_.mean * m_.mean);
  return assemble(m_, l2, sketch_on() ? &buckets : nullptr);
}

void SimdReducer::reduce(const std::byte* p, size_t n) {
  if (n == 0) return;
  const SketchState* sk = sketch_on() ? &sk_ : nullptr;
  if (native_) {
    const size_t done = simd_reduce(*native_, p, n, pos_, sk, &m_);
    // Odd tails, tiny widths, or a target without usable vectors: scalar, chunk by chunk.
    for (size_t off = done; off < n; off += stage_cap_) {
      const size_t len = std::min(stage_cap_, n - off);
      decoded_.resize(len);
      for (size_t k = 0; k < len; ++k) decoded_[k] = decode(p + (off + k) * elem_bytes_);
      scalar_tail(decoded_.data(), len, pos_ + off);
    }
    pos_ += n;
    return;
  }
  decoded_.resize(std::min(n, stage_cap_));
  for (size_t off = 0; off < n; off += stage_cap_) {
    const size_t len = std::min(stage_cap_, n - off);
    const std::byte* q = p + off * elem_bytes_;
    // Table or widening decode; the compiler vectorises the integer loops.
    for (size_t k = 0; k < len; ++k) decoded_[k] = decode(q + k * elem_bytes_);
    reduce_doubles(decoded_.data(), len);
  }
}

void SimdReducer::reduce_doubles(const double* xs, size_t n) {
  const SketchState* sk = sketch_on() ? &sk_ : nullptr;
  const size_t done = simd_reduce(SimdSource::kF64, xs, n, pos_, sk, &m_);
  for (size_t off = done; off < n; off += kScalarChunk) {
    scalar_tail(xs + off, std::min(kScalarChunk, n - off), pos_ + off);
  }
  pos_ += n;
}

// Two-pass over a short run (at most kStageElements), merged like a SIMD chunk.
void SimdReducer::scalar_tail(const double* xs, size_t n, uint64_t start) {
  uint64_t finite = 0;
  double sum = 0;
  for (size_t k = 0; k < n; ++k) {
    const double x = xs[k];
    if (std::isnan(x)) {
      ++m_.nan;
    } else if (std::isinf(x)) {
      ++(x > 0 ? m_.posinf : m_.neginf);
    } else {
      ++finite;
      sum += x;
      m_.zero += x == 0;
      m_.min = std::min(m_.min, x);
      m_.max = std::max(m_.max, x);
      if (sketch_on()) {
        const uint64_t i = start + k;
        const double signed_x = tables_->sign_bit(i) ? -x : x;
        acc_[sketch_bucket(opts_.sketch_seed, i, opts_.sketch_width)] += signed_x;
      }
    }
  }
  if (finite == 0) return;
  const double mean = sum / static_cast<double>(finite);
  double m2 = 0;
  for (size_t k = 0; k < n; ++k) {
    if (std::isfinite(xs[k])) m2 += (xs[k] - mean) * (xs[k] - mean);
  }
  m_.add_chunk(finite, sum, m2);
}

}  // namespace
}  // namespace stats_detail

bool reducer_supports(DType t) { return dtype_info(t).has_stats && dtype_info(t).bits % 8 == 0; }

std::unique_ptr<TensorReducer> TensorReducer::create(DType dtype, uint64_t /*expected_count*/, const StatsOptions& opts,
                                                     bool with_sketch) {
  if (!reducer_supports(dtype)) return nullptr;
  return std::make_unique<stats_detail::SimdReducer>(dtype, opts, with_sketch);
}

std::unique_ptr<TensorReducer> TensorReducer::create_reference(DType dtype, uint64_t /*expected_count*/,
                                                               const StatsOptions& opts, bool with_sketch) {
  if (!reducer_supports(dtype)) return nullptr;
  return stats_detail::make_reference_reducer(dtype, opts, with_sketch);
}

}  // namespace msit
