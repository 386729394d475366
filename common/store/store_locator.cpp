#include "common/store/store_locator.h"

#include "common/safety/dump_roots.h"

namespace msit::store {
namespace {

std::string parent_of(std::string_view dir) {
  const size_t slash = dir.rfind('/');
  if (slash == std::string_view::npos || dir == "/") return {};
  return slash == 0 ? std::string("/") : std::string(dir.substr(0, slash));
}

}  // namespace

std::string join_dir(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string store_home_of(std::string_view abs_dir) {
  DumpScope scope;
  size_t pos = 0;
  while (pos < abs_dir.size()) {
    size_t slash = abs_dir.find('/', pos);
    if (slash == std::string_view::npos) slash = abs_dir.size();
    const std::string_view comp = abs_dir.substr(pos, slash - pos);
    if (!comp.empty() && comp != ".") {
      scope = scope.enter(comp);
      if (scope.kind() != DumpRootKind::kNone) return std::string(abs_dir.substr(0, slash));
    }
    pos = slash + 1;
  }
  return {};
}

std::vector<std::string> writer_store_dirs(std::string_view abs_dir) {
  const std::string home = store_home_of(abs_dir);
  if (home.empty()) return {};
  std::vector<std::string> out;
  for (std::string d(abs_dir); d.size() >= home.size(); d = parent_of(d)) {
    out.push_back(d);
    if (d.size() == home.size()) break;
  }
  return out;
}

std::vector<std::string> reader_store_dirs(std::string_view abs_dir) {
  std::vector<std::string> out;
  for (std::string d(abs_dir); !d.empty(); d = parent_of(d)) out.push_back(d);
  return out;
}

}  // namespace msit::store
