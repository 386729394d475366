// What a dump file says about each tensor it holds: the common model of GE and npy headers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype/dtype.h"
#include "common/io/file.h"

namespace msit {

enum class Role : uint8_t { kInput, kOutput, kBuffer, kWorkspace };
std::string_view role_name(Role r);  // "input", "output", "buffer", "workspace"

// GE format numbers we need by name (docs/formats/ge-dump.md §6). Always mask with 0xFF first.
namespace ge_format {
inline constexpr int kNCHW = 0, kNHWC = 1, kND = 2, kNC1HWC0 = 3, kFractalZ = 4, kNC1HWC0_C04 = 12, kHWCN = 16,
                     kC1HWNCoC0 = 25, kNDHWC = 27, kFractalNZ = 29, kNCDHW = 30, kNDC1HWC0 = 32, kFractalZ3D = 33,
                     kNC = 35, kCN = 34;
}
std::string ge_format_name(int64_t packed_format);  // primary name, e.g. "FRACTAL_NZ"; "FORMAT_<n>" if unknown
int ge_primary_format(int64_t packed_format);       // packed & 0xFF

// Statistics a dumper wrote instead of the data (ATB `--type tensor stats` .bin files,
// docs/formats/atb-torch.md §2.7): no payload is read; absent values ("N/A") stay empty.
struct HeaderStats {
  std::optional<double> max, min, mean, l2norm;
};

struct TensorDesc {
  Role role = Role::kOutput;
  uint32_t index = 0;                 // position within its role
  std::optional<uint32_t> sub_index;  // FX INPUT.i.j: j
  DType dtype = DType::kUnknown;
  int64_t ge_dtype = -1;               // raw proto number (GE only), for messages
  int64_t ge_format = ge_format::kND;  // raw packed GE format (npy: ND)
  int32_t sub_format = 0;
  std::vector<uint64_t> shape;           // as stored (device shape for GE)
  std::vector<uint64_t> original_shape;  // logical; equals shape when the file has none
  uint64_t payload_offset = 0;           // absolute byte offset in the file
  uint64_t payload_size = 0;             // bytes of this tensor's block
  bool fortran_order = false;            // npy only
  bool byte_swapped = false;             // npy only: big-endian data on a little-endian host
  // Element strides of a view (torch .pth), row-major over shape; empty = contiguous. The
  // payload then starts at the view's first element and covers every element it reaches.
  std::vector<uint64_t> strides;
  std::optional<HeaderStats> header_stats;  // set: a stats-only tensor, payload_size 0

  uint64_t stored_count() const;   // product of shape (saturating)
  uint64_t logical_count() const;  // product of original_shape (saturating)
};

enum class FileKind : uint8_t { kGeBin, kNpy, kAtbBin, kPth };
std::string_view file_kind_name(FileKind k);  // "ge_bin", "npy", "atb_bin", "pth"

struct RawDumpFile {
  FileKind kind = FileKind::kGeBin;
  std::string path;
  FileIdentity identity;
  uint64_t declared_size = 0;       // bytes the header accounts for
  std::vector<TensorDesc> tensors;  // GE: inputs, outputs, buffers, workspaces (payload order)
  // GE header fields
  std::string version;
  std::string dump_op_name;
  uint64_t dump_time = 0;
  bool legacy_whole_protobuf = false;  // pre-2.0 file: payloads embedded in the protobuf
  std::vector<std::string> warnings;   // e.g. trailing bytes after the last payload
};

}  // namespace msit
