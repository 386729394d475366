// One op to recompute, as every front end hands it over (its tensors in a dump file, its
// parameters), and what the recomputation found (docs/opcheck.md "Verdicts").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"
#include "common/opcheck/op_table.h"

namespace msit::opcheck {

// One tensor of a dump file: where its bytes are and what its header says.
struct OpTensor {
  SourcePtr src;
  std::string path;
  TensorDesc desc;
  // The dtype the kernel produced when the file holds its values widened (MindSpore saves bf16
  // as fp32): bounds and rounding are that dtype's; the bytes are read as desc.dtype.
  std::optional<DType> kernel_dtype;
};

// Parameters from the dump's own metadata (graph text attributes, constant inputs, ATB
// parameters, torch kwargs). A front end sets only what it read; a missing one makes the op
// "not recomputed" in the front end, never a default here.
struct OpParams {
  bool transpose_a = false, transpose_b = false;
  std::vector<int64_t> axes;  // softmax, reduce: as given (negative counts from the end)
  bool keep_dims = false;
  double epsilon = 0;
  double scalar = 0;  // Muls/Adds `value`, Swish `scale`
  int64_t axis = 0;   // concat, split, gather
  std::vector<int64_t> perm;
  std::vector<int64_t> split_sizes;
  int64_t begin_norm_axis = -1;  // layer_norm: first normalised dim; rms_norm: from gamma's rank
  bool has_bias = false;         // matmul/linear: inputs[2] is a bias over the last dim
  // GE Exp / Log: y = base^(scale x + shift), y = log_base(scale x + shift); base -1 is e.
  double base = -1, scale = 1, shift = 0;
};

struct OpCall {
  OpKind kind = OpKind::kAdd;
  std::string op_name, op_type;  // as the dump names them, for reports
  OpParams params;
  std::vector<OpTensor> inputs;   // data inputs only, in the op's order
  std::vector<OpTensor> outputs;  // outputs opcheck compares (a subset when some are not defined)
};

enum class OpVerdict : uint8_t {
  kAgrees,         // every element within what a correct kernel of its dtype can be off
  kDisagrees,      // some element beyond it: the kernel did not compute this from these inputs
  kNotRecomputed,  // outside the op set, attributes or inputs missing, unreadable, over budget
};
std::string_view op_verdict_name(OpVerdict v);      // "agrees", "disagrees", "not recomputed"
std::string_view op_verdict_sentence(OpVerdict v);  // the sentence reports print

enum class SkipReason : uint8_t {
  kNone,
  kUnknownOp,         // no row in the op table for this type
  kMissingAttribute,  // the graph text lacks an attribute the semantics depend on
  kNoGraph,           // the op has attributes and no graph text names it
  kMissingInput,      // fewer inputs (or constant inputs) than the op needs
  kUnsupportedDtype,  // a tensor's dtype has no float64 reading
  kShapeMismatch,     // shapes do not fit the op's semantics
  kOverBudget,        // a tensor the op must hold whole is larger than the memory budget
  kUnreadable,        // a payload could not be read
};
std::string_view skip_reason_name(SkipReason r);

// One output compared with its recomputation. err = |dumped - recomputed| (float64), ulp =
// one unit in the last place of the output dtype at the recomputed value, bound = what a
// correct kernel may be off (docs/opcheck.md "Bounds").
struct OutputCheck {
  uint32_t index = 0;
  DType dtype = DType::kUnknown;
  std::vector<uint64_t> shape;
  uint64_t count = 0;
  uint64_t beyond_bound = 0;      // elements whose error exceeds their bound (NaN/Inf mismatches too)
  uint64_t special_mismatch = 0;  // of those: NaN or Inf where the other side has none, or Infs of different sign
  double cosine = 1, red = 0, max_abs = 0, max_ulps = 0, max_bound_ratio = 0;
  double mean_ulps = 0;
  uint64_t worst_index = 0;  // logical index of the element with the largest error/bound
  double worst_recomputed = 0, worst_dumped = 0, worst_bound = 0;
};

struct OpCheckResult {
  std::string op_name, op_type, path;
  std::optional<OpKind> kind;
  OpVerdict verdict = OpVerdict::kNotRecomputed;
  SkipReason reason = SkipReason::kNone;
  std::string detail;  // why not recomputed, in a sentence
  std::vector<OutputCheck> outputs;
};

struct OpcheckOptions {
  // Bytes of float64 working memory an op may hold at once (blocks of a matmul, a tensor an
  // op needs whole). Larger inputs stream or are blocked; an op that cannot is not recomputed.
  uint64_t memory_bytes = uint64_t{512} << 20;
};

}  // namespace msit::opcheck
