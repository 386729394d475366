// msProbe's dump.json / debug.json (docs/formats/msprobe.md §3-§6), read as a stream: the
// header, then one entry at a time in file (= execution) order, each flattened into leaves
// (tensor records, scalars, nulls). Memory is bounded by one entry, never by the file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/dtype/dtype.h"
#include "common/formats/msprobe_names.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"

namespace msit {

enum class MsprobeTask : uint8_t { kStatistics, kTensor, kStructure, kOverflowCheck, kNanCheck, kOther, kAbsent };
enum class MsprobeLevel : uint8_t { kL0, kL1, kMix, kL2, kDebug, kOther, kAbsent };
// kAbsent: a file written before the "framework" key existed (8.x; msProbe then assumes PyTorch).
enum class MsprobeFramework : uint8_t { kPytorch, kMindspore, kMindtorch, kOther, kAbsent };

struct MsprobeHeader {
  MsprobeTask task = MsprobeTask::kAbsent;
  MsprobeLevel level = MsprobeLevel::kAbsent;
  MsprobeFramework framework = MsprobeFramework::kAbsent;
  std::string task_text, level_text, framework_text;  // as written
  std::optional<std::string> dump_data_dir;           // informational only (§3): never opened
};

// One of Max / Min / Mean / Norm (§6): absent (xor mode), null (empty, integer in 26.x, ...),
// a number (NaN and +-Inf included), a bool (bool tensors' Max/Min), or other text.
struct MsprobeStat {
  enum class Kind : uint8_t { kAbsent, kNull, kNumber, kBool, kText };
  Kind kind = Kind::kAbsent;
  double number = 0;
  bool is_integer = false;  // written as a JSON integer (26.x integer Max/Min)
  bool flag = false;
  std::string text;
  bool has_number() const { return kind == Kind::kNumber; }
};

// The "md5" field (§6): CRC-32 as 8 hex digits (md5 mode) or "0x" + 16 hex digits (xor mode).
enum class MsprobeChecksum : uint8_t { kNone, kNull, kCrc32, kXor, kOther };

struct MsprobeTensor {
  std::string type;        // torch.Tensor, mindspore.Tensor, numpy.ndarray, a subclass name
  std::string dtype_text;  // as written: torch.bfloat16, BFloat16, float32 (numpy)
  DType dtype = DType::kUnknown;
  std::vector<uint64_t> shape;
  std::optional<uint64_t> count;  // product of shape; nullopt when it overflows 64 bits
  MsprobeStat max, min, mean, norm;
  std::optional<bool> requires_grad;     // PyTorch only
  std::optional<std::string> data_name;  // a checked file name in the tensor directory
  MsprobeChecksum checksum = MsprobeChecksum::kNone;
  std::string checksum_text;
};

// A non-tensor leaf: {"type": T, "value": V} (V kept as JSON text), a typed object without
// "value" (torch.memory_format, ProcessGroup: its members as JSON text), or a bare value.
struct MsprobeScalar {
  std::string type;        // "" for a bare value
  std::string value_text;  // the JSON text of the value: 12, "SBH", true, [1, 2], ...
  std::optional<double> number;
};

enum class MsprobeLeafKind : uint8_t { kTensor, kScalar, kNull };

struct MsprobeLeaf {
  MsprobeCategory category = MsprobeCategory::kInput;
  std::vector<std::string> path;  // list indexes and dict keys below the category (§5)
  MsprobeLeafKind kind = MsprobeLeafKind::kNull;
  MsprobeTensor tensor;  // kTensor
  MsprobeScalar scalar;  // kScalar
};

struct MsprobeEntry {
  std::string name;                        // the key in "data"
  std::optional<MsprobeEntryName> parsed;  // nullopt for names of no known shape (still read)
  uint64_t order = 0;                      // position in the file, from 0; repeats keep theirs
  std::vector<MsprobeLeaf> leaves;         // in file order
  std::optional<bool> is_recompute;        // 8.x
  std::optional<bool> is_nan;              // nan_check task
};

struct MsprobeJsonLimits {
  uint64_t max_entry_values = 1u << 20;  // JSON values in one entry
  uint64_t max_entry_bytes = 64u << 20;  // text of one entry
  uint32_t max_depth = 512;
};

struct MsprobeJsonSink {
  // Called once, when "data" starts (or at the end when there is none).
  std::function<Status(const MsprobeHeader&)> on_header;
  std::function<Status(MsprobeEntry&&)> on_entry;
};

struct MsprobeJsonInfo {
  MsprobeHeader header;
  uint64_t entries = 0;
  uint64_t bytes = 0;
};

// Reads a whole dump.json from a byte source. A text that ends early is Stage::kIncomplete
// (msProbe rewrites the file whole while it runs): the entries already passed to the sink were
// read from a file being rewritten, and are provisional until a read ends without error.
Result<MsprobeJsonInfo> read_msprobe_json(ByteSource& src, const MsprobeJsonSink& sink,
                                          const MsprobeJsonLimits& limits = {});

// The same for the file `name` in directory `dir_fd` (opened without following a link; shown
// as `shown_as`). Stage::kIncomplete also when msProbe holds its write lock on the file, or
// when its identity (size, mtime, ctime, inode) changed while it was read (§3).
Result<MsprobeJsonInfo> read_msprobe_json_at(int dir_fd, const std::string& name, const std::string& shown_as,
                                             const MsprobeJsonSink& sink, const MsprobeJsonLimits& limits = {});

// msProbe's dtype text (torch.float16, BFloat16, Float32, int64) as our DType; kUnknown if none.
DType msprobe_dtype(std::string_view text);

std::string_view msprobe_task_name(MsprobeTask t);
std::string_view msprobe_framework_name(MsprobeFramework f);

}  // namespace msit
