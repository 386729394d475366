// Highway loaders that widen one vector of stored elements to float32/float64 lanes exactly as
// the scalar decoders do; shared by the statistics reducer and the compare kernel. Included once
// per SIMD target (Highway's -inl.h pattern) from files that use foreach_target.h.
#if defined(MSIT_DTYPE_DECODE_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MSIT_DTYPE_DECODE_SIMD_INL_H_
#undef MSIT_DTYPE_DECODE_SIMD_INL_H_
#else
#define MSIT_DTYPE_DECODE_SIMD_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace msit::dtype_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Highway 1.0.3 widens fp16 by bit manipulation on targets without a hardware conversion and
// then maps exponent 31 to 2^16 instead of inf/NaN; forcing the exponent fixes it.
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)) || HWY_ARCH_ARM
inline constexpr bool kFixF16Specials = false;
#else
inline constexpr bool kFixF16Specials = true;
#endif

struct SrcF16 {
  using Lane = float;
  static constexpr size_t kBytes = 2;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint8_t* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    const auto v = hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
    if constexpr (!kFixF16Specials) return v;
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> du16;
    const auto bits = hn::PromoteTo(du, hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p)));
    const auto special = hn::Eq(hn::And(bits, hn::Set(du, 0x7c00u)), hn::Set(du, 0x7c00u));
    const auto fixed = hn::Or(hn::BitCast(du, v), hn::Set(du, 0x7f800000u));
    return hn::BitCast(d, hn::IfThenElse(special, fixed, hn::BitCast(du, v)));
  }
};

struct SrcBF16 {
  using Lane = float;
  static constexpr size_t kBytes = 2;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint8_t* p) {
    const hn::Rebind<hwy::bfloat16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::bfloat16_t*>(p)));
  }
};

struct SrcF32 {
  using Lane = float;
  static constexpr size_t kBytes = 4;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint8_t* p) {
    return hn::LoadU(d, reinterpret_cast<const float*>(p));
  }
};

struct SrcF64 {
  using Lane = double;
  static constexpr size_t kBytes = 8;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint8_t* p) {
    return hn::LoadU(d, reinterpret_cast<const double*>(p));
  }
};

// Integers widen through int32 lanes; every int8/uint8 value is exact in float32.
struct SrcI8 {
  using Lane = float;
  static constexpr size_t kBytes = 1;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint8_t* p) {
    const hn::RebindToSigned<D> di;
    const hn::Rebind<int8_t, D> d8;
    return hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(d8, reinterpret_cast<const int8_t*>(p))));
  }
};

struct SrcU8 {
  using Lane = float;
  static constexpr size_t kBytes = 1;
  template <class D>
  static HWY_INLINE hn::Vec<D> Load(D d, const uint8_t* p) {
    const hn::RebindToSigned<D> di;
    const hn::Rebind<uint8_t, D> d8;
    return hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(d8, p)));
  }
};
#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace msit::dtype_simd
HWY_AFTER_NAMESPACE();

#endif  // MSIT_DTYPE_DECODE_SIMD_INL_H_ toggle
