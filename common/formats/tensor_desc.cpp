// Names of roles, GE formats and file kinds, and element counts of tensor descriptors.
#include "common/formats/tensor_desc.h"

#include <array>
#include <string_view>

namespace msit {
namespace {

// docs/formats/ge-dump.md §6, dump proto / ge::Format numbering 0-49, plus the ge::Format-only 50-54.
// clang-format off
constexpr std::array<std::string_view, 55> kFormatNames = {
    "NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "NC1C0HWPAD", "NHWC1C0", "FSR_NCHW",
    "FRACTAL_DECONV", "C1HWNC0", "FRACTAL_DECONV_TRANSPOSE", "FRACTAL_DECONV_SP_STRIDE_TRANS",
    "NC1HWC0_C04", "FRACTAL_Z_C04", "CHWN", "FRACTAL_DECONV_SP_STRIDE8_TRANS", "HWCN",
    "NC1KHKWHWC0", "BN_WEIGHT", "FILTER_HWCK", "HASHTABLE_LOOKUP_LOOKUPS",
    "HASHTABLE_LOOKUP_KEYS", "HASHTABLE_LOOKUP_VALUE", "HASHTABLE_LOOKUP_OUTPUT",
    "HASHTABLE_LOOKUP_HITS", "C1HWNCoC0", "MD", "NDHWC", "FRACTAL_ZZ", "FRACTAL_NZ", "NCDHW",
    "DHWCN", "NDC1HWC0", "FRACTAL_Z_3D", "CN", "NC", "DHWNC", "FRACTAL_Z_3D_TRANSPOSE",
    "FRACTAL_ZN_LSTM", "FRACTAL_Z_G", "RESERVED", "ALL", "NULL", "ND_RNN_BIAS", "FRACTAL_ZN_RNN",
    "NYUV", "NYUV_A", "NCL", "FRACTAL_Z_WINO", "C1HWC0", "FRACTAL_NZ_C0_16", "FRACTAL_NZ_C0_32",
    "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_4", "FRACTAL_NZ_C0_8"};
// clang-format on

uint64_t saturating_product(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) {
    if (d == 0) return 0;  // any zero dim: empty tensor, even if another dim is huge
  }
  for (uint64_t d : dims) {
    if (n > UINT64_MAX / d) return UINT64_MAX;
    n *= d;
  }
  return n;
}

}  // namespace

std::string_view role_name(Role r) {
  switch (r) {
    case Role::kInput: return "input";
    case Role::kOutput: return "output";
    case Role::kBuffer: return "buffer";
    case Role::kWorkspace: return "workspace";
  }
  return "unknown";
}

int ge_primary_format(int64_t packed_format) { return static_cast<int>(packed_format & 0xFF); }

std::string ge_format_name(int64_t packed_format) {
  int primary = ge_primary_format(packed_format);
  if (primary < static_cast<int>(kFormatNames.size())) {
    return std::string(kFormatNames[static_cast<size_t>(primary)]);
  }
  if (primary == 255) return "MAX";
  return "FORMAT_" + std::to_string(primary);
}

std::string_view file_kind_name(FileKind k) {
  switch (k) {
    case FileKind::kGeBin: return "ge_bin";
    case FileKind::kNpy: return "npy";
    case FileKind::kAtbBin: return "atb_bin";
    case FileKind::kPth: return "pth";
  }
  return "unknown";
}

uint64_t TensorDesc::stored_count() const { return saturating_product(shape); }
uint64_t TensorDesc::logical_count() const { return saturating_product(original_shape); }

}  // namespace msit
