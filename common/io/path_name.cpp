// Parent directory and last name of a path as text (dirname/basename rules).
#include "common/io/path_name.h"

namespace msit {

std::string_view without_trailing_slashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

std::string parent_dir(std::string_view path) {
  path = without_trailing_slashes(path);
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(without_trailing_slashes(path.substr(0, slash)));
}

std::string base_name(std::string_view path) {
  path = without_trailing_slashes(path);
  if (path == "/") return "/";
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace msit
