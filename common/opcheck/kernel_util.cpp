// Shape helpers the opcheck kernels share, and reading a tensor whole within the budget.
#include <string>

#include "common/opcheck/kernels.h"
#include "common/opcheck/values.h"

namespace msit::opcheck::detail {

uint64_t numel(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

std::string dims_text(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

bool normalize_axis(int64_t axis, size_t rank, size_t& out) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return false;
  out = static_cast<size_t>(axis < 0 ? axis + r : axis);
  return true;
}

std::vector<uint64_t> strides_of(const std::vector<uint64_t>& dims) {
  std::vector<uint64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

Result<Skip> load_whole(const Kernel& k, const OpTensor& t, std::vector<double>& out) {
  MSIT_ASSIGN_OR_RETURN(auto v, TensorValues::open(t));
  if (v->count() > k.budget_elements()) {
    return skip(SkipReason::kOverBudget, t.path + ": " + std::string(role_name(t.desc.role)) + " " +
                                             std::to_string(t.desc.index) + " has " + std::to_string(v->count()) +
                                             " elements; this op needs it whole and the memory budget holds " +
                                             std::to_string(k.budget_elements()) + " (raise --memory-mb)");
  }
  MSIT_ASSIGN_OR_RETURN(out, v->read_all());
  return ran();
}

}  // namespace msit::opcheck::detail
