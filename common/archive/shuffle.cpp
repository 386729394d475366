// Highway kernels for byte shuffling, dispatched at run time (x86_64 and aarch64 alike).
// Element sizes 2 and 4 (fp16/bf16/fp32: nearly every dumped tensor) use interleaved
// loads/stores; other sizes take a scalar loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "common/archive/shuffle.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstdint>
#include <cstring>

#include "common/archive/shuffle.h"

HWY_BEFORE_NAMESPACE();
namespace msit::archive::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Returns the number of whole elements handled; the caller finishes the rest.
size_t Shuffle2(const uint8_t* in, uint8_t* out, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t L = hn::Lanes(d);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    hn::Vec<decltype(d)> a, b;
    hn::LoadInterleaved2(d, in + 2 * i, a, b);
    hn::StoreU(a, d, out + i);
    hn::StoreU(b, d, out + n + i);
  }
  return i;
}

size_t Shuffle4(const uint8_t* in, uint8_t* out, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t L = hn::Lanes(d);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    hn::Vec<decltype(d)> a, b, c, e;
    hn::LoadInterleaved4(d, in + 4 * i, a, b, c, e);
    hn::StoreU(a, d, out + i);
    hn::StoreU(b, d, out + n + i);
    hn::StoreU(c, d, out + 2 * n + i);
    hn::StoreU(e, d, out + 3 * n + i);
  }
  return i;
}

size_t Unshuffle2(const uint8_t* in, uint8_t* out, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t L = hn::Lanes(d);
  size_t i = 0;
  for (; i + L <= n; i += L) { hn::StoreInterleaved2(hn::LoadU(d, in + i), hn::LoadU(d, in + n + i), d, out + 2 * i); }
  return i;
}

size_t Unshuffle4(const uint8_t* in, uint8_t* out, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t L = hn::Lanes(d);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    hn::StoreInterleaved4(hn::LoadU(d, in + i), hn::LoadU(d, in + n + i), hn::LoadU(d, in + 2 * n + i),
                          hn::LoadU(d, in + 3 * n + i), d, out + 4 * i);
  }
  return i;
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace msit::archive::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace msit::archive {
namespace detail {
HWY_EXPORT(Shuffle2);
HWY_EXPORT(Shuffle4);
HWY_EXPORT(Unshuffle2);
HWY_EXPORT(Unshuffle4);
HWY_EXPORT(TargetName);
}  // namespace detail

namespace {

// One body for both directions: `forward` maps element-major to plane-major.
void transpose(const std::byte* in, std::byte* out, size_t len, size_t elem, bool forward) {
  if (elem <= 1 || elem > len) {
    if (len) std::memcpy(out, in, len);
    return;
  }
  const size_t n = len / elem;
  const auto* src = reinterpret_cast<const uint8_t*>(in);
  auto* dst = reinterpret_cast<uint8_t*>(out);
  size_t done = 0;
  if (elem == 2)
    done = (forward ? HWY_DYNAMIC_DISPATCH(detail::Shuffle2) : HWY_DYNAMIC_DISPATCH(detail::Unshuffle2))(src, dst, n);
  if (elem == 4)
    done = (forward ? HWY_DYNAMIC_DISPATCH(detail::Shuffle4) : HWY_DYNAMIC_DISPATCH(detail::Unshuffle4))(src, dst, n);
  for (size_t i = done; i < n; ++i) {
    for (size_t j = 0; j < elem; ++j) {
      if (forward) dst[j * n + i] = src[i * elem + j];
      else dst[i * elem + j] = src[j * n + i];
    }
  }
  if (len > n * elem) std::memcpy(dst + n * elem, src + n * elem, len - n * elem);
}

}  // namespace

void shuffle_bytes(const std::byte* in, std::byte* out, size_t len, size_t elem) {
  transpose(in, out, len, elem, true);
}

void unshuffle_bytes(const std::byte* in, std::byte* out, size_t len, size_t elem) {
  transpose(in, out, len, elem, false);
}

const char* shuffle_target_name() { return HWY_DYNAMIC_DISPATCH(detail::TargetName)(); }

}  // namespace msit::archive
#endif  // HWY_ONCE
