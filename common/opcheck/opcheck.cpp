// The opcheck engine: open the outputs, run the op's kernel, turn its outcome into a verdict.
#include "common/opcheck/opcheck.h"

#include "common/opcheck/kernels.h"

namespace msit::opcheck {

std::string_view op_verdict_name(OpVerdict v) {
  switch (v) {
    case OpVerdict::kAgrees: return "agrees";
    case OpVerdict::kDisagrees: return "disagrees";
    case OpVerdict::kNotRecomputed: return "not recomputed";
  }
  return "?";
}

std::string_view op_verdict_sentence(OpVerdict v) {
  switch (v) {
    case OpVerdict::kAgrees: return "the kernel agrees with its inputs: the error is inherited (or in the golden)";
    case OpVerdict::kDisagrees: return "the kernel disagrees with its own inputs";
    case OpVerdict::kNotRecomputed: return "not recomputed";
  }
  return "?";
}

std::string_view skip_reason_name(SkipReason r) {
  switch (r) {
    case SkipReason::kNone: return "";
    case SkipReason::kUnknownOp: return "op not in the recomputed set";
    case SkipReason::kMissingAttribute: return "attribute missing";
    case SkipReason::kNoGraph: return "no graph text for the op's attributes";
    case SkipReason::kMissingInput: return "input missing";
    case SkipReason::kUnsupportedDtype: return "dtype not supported";
    case SkipReason::kShapeMismatch: return "shapes do not fit the op";
    case SkipReason::kOverBudget: return "over the memory budget";
    case SkipReason::kUnreadable: return "unreadable";
  }
  return "?";
}

OpCheckResult not_recomputed(const OpCall& named, SkipReason r, std::string detail) {
  OpCheckResult res;
  res.op_name = named.op_name;
  res.op_type = named.op_type;
  if (!named.outputs.empty()) res.path = named.outputs[0].path;
  else if (!named.inputs.empty()) res.path = named.inputs[0].path;
  res.verdict = OpVerdict::kNotRecomputed;
  res.reason = r;
  res.detail = std::move(detail);
  return res;
}

namespace {

Result<detail::Skip> dispatch(const detail::Kernel& k) {
  switch (k.call.kind) {
    case OpKind::kMatMul:
    case OpKind::kBatchMatMul:
    case OpKind::kLinear: return detail::run_matmul(k);
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv: return detail::run_binary(k);
    case OpKind::kSoftmax: return detail::run_softmax(k);
    case OpKind::kRmsNorm:
    case OpKind::kLayerNorm: return detail::run_norm(k);
    case OpKind::kReduceSum:
    case OpKind::kReduceMean: return detail::run_reduce(k);
    case OpKind::kTranspose: return detail::run_transpose(k);
    case OpKind::kConcat: return detail::run_concat(k);
    case OpKind::kSplit: return detail::run_split(k);
    case OpKind::kGather: return detail::run_gather(k);
    default: return detail::run_unary(k);
  }
}

}  // namespace

OpCheckResult check_op(const OpCall& call, const OpcheckOptions& opts) {
  OpCheckResult res = not_recomputed(call, SkipReason::kNone, "");
  res.kind = call.kind;
  if (call.outputs.empty()) {
    res.reason = SkipReason::kMissingInput;
    res.detail = "the dump holds no output of this op";
    return res;
  }
  detail::Sinks sinks;
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    auto s = OutputSink::open(call.outputs[i], call.outputs[i].desc.index);
    if (!s.ok()) {
      res.reason = SkipReason::kUnsupportedDtype;
      res.detail = s.error().message;
      return res;
    }
    sinks.push_back(std::move(*s));
  }
  detail::Kernel k{call, opts, sinks};
  auto ran = dispatch(k);
  if (!ran.ok()) {
    res.reason = SkipReason::kUnreadable;
    res.detail = ran.error().path + ": " + ran.error().message;
    return res;
  }
  if (ran->reason != SkipReason::kNone) {
    res.reason = ran->reason;
    res.detail = ran->detail;
    return res;
  }
  res.verdict = OpVerdict::kAgrees;
  for (const auto& s : sinks) {
    res.outputs.push_back(s->result());
    if (res.outputs.back().beyond_bound > 0) res.verdict = OpVerdict::kDisagrees;
  }
  return res;
}

}  // namespace msit::opcheck
