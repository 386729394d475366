// Internal to common/opcheck: the recomputation kernels, one family per file, and the shape
// helpers they share. Each reads its inputs, feeds its outputs' sinks, or says why it cannot.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/opcheck/checker.h"
#include "common/opcheck/op_call.h"

namespace msit::opcheck::detail {

// Why a kernel did not run (kNone: it ran and fed every sink).
struct Skip {
  SkipReason reason = SkipReason::kNone;
  std::string detail;
};
inline Skip ran() { return {}; }
inline Skip skip(SkipReason r, std::string d) { return {r, std::move(d)}; }

using Sinks = std::vector<std::unique_ptr<OutputSink>>;

struct Kernel {
  const OpCall& call;
  const OpcheckOptions& opts;
  Sinks& sinks;  // one per call.outputs entry, opened
  uint64_t budget_elements() const { return opts.memory_bytes / sizeof(double); }
};

uint64_t numel(const std::vector<uint64_t>& dims);
std::string dims_text(const std::vector<uint64_t>& dims);
// A possibly negative axis of a rank-r tensor as 0..r-1; false when out of range.
bool normalize_axis(int64_t axis, size_t rank, size_t& out);
// Row-major element strides of dims.
std::vector<uint64_t> strides_of(const std::vector<uint64_t>& dims);
// Reads input i whole when it fits the budget; a Skip otherwise.
Result<Skip> load_whole(const Kernel& k, const OpTensor& t, std::vector<double>& out);

Result<Skip> run_unary(const Kernel& k);      // activations, Muls/Adds, Cast, reshape-like
Result<Skip> run_binary(const Kernel& k);     // Add/Sub/Mul/Div with broadcasting
Result<Skip> run_matmul(const Kernel& k);     // MatMul, BatchMatMul, Linear (BLAS, blocked)
Result<Skip> run_softmax(const Kernel& k);    // over one axis
Result<Skip> run_norm(const Kernel& k);       // RmsNorm, LayerNorm over the last dims
Result<Skip> run_reduce(const Kernel& k);     // ReduceSum, ReduceMean
Result<Skip> run_transpose(const Kernel& k);  // perm
Result<Skip> run_concat(const Kernel& k);     // ConcatV2 / cat
Result<Skip> run_split(const Kernel& k);      // SplitV
Result<Skip> run_gather(const Kernel& k);     // GatherV2 / embedding

}  // namespace msit::opcheck::detail
