// Error formatting shared by every user-visible message.
#include "common/base/result.h"

#include <cstring>

namespace msit {

std::string Error::to_string() const {
  std::string out;
  if (!path.empty()) out += path + ": ";
  if (stage != Stage::kNone) (out += stage_name(stage)) += ": ";
  out += message;
  if (sys_errno != 0) out += std::string(" (") + std::strerror(sys_errno) + ")";
  return out;
}

Error make_error(std::string path, Stage stage, std::string message) {
  return Error{std::move(path), stage, std::move(message), 0};
}

Error make_sys_error(std::string path, Stage stage, std::string what, int err) {
  return Error{std::move(path), stage, std::move(what), err};
}

}  // namespace msit
