// Settings of live divergence: `golden` specs and the checks that pair each golden with a
// watched root (docs/live-divergence.md, "Options and config keys").
#include "daemon/live_settings.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "common/resolve/resolve.h"

namespace msit::daemon {
namespace {

std::string absolute(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  if (!p.empty() && p.front() != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) != nullptr) p = std::string(cwd) + "/" + p;
  }
  return p;
}

// The path with symlinks resolved as far as it exists (a root or golden may not exist yet): only
// for comparing where two trees are, never for opening anything.
std::string where(const std::string& path) {
  std::string p = absolute(path), rest;
  for (;;) {
    char real[PATH_MAX];
    if (::realpath(p.c_str(), real) != nullptr) return std::string(real) + rest;
    size_t slash = p.find_last_of('/');
    if (slash == std::string::npos || p == "/") return absolute(path);
    rest = p.substr(slash) + rest;
    p = slash == 0 ? "/" : p.substr(0, slash);
  }
}

// `inner` is `outer` or below it.
bool within(const std::string& inner, const std::string& outer) {
  if (outer == "/") return true;
  return inner == outer ||
         (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/');
}

std::string list(const std::vector<std::string>& roots) {
  std::string out;
  for (const auto& r : roots) out += (out.empty() ? "" : ", ") + r;
  return out;
}

Status check_golden_dir(const std::string& golden, const std::string& source) {
  struct stat st {};
  if (::stat(golden.c_str(), &st) != 0) {
    if (errno == ENOENT) return ok_status();  // being dumped: its files are matched as they appear
    return make_sys_error(source, Stage::kConfig, "golden " + golden + ": cannot look at it", errno);
  }
  if (!S_ISDIR(st.st_mode))
    return make_error(source, Stage::kConfig,
                      "golden " + golden +
                          " is not a directory: give the golden dump's directory (raw, summarised or "
                          "being dumped)");
  return ok_status();
}

// A golden inside a watched tree would be compacted as a dump of its own; a watched tree inside
// the golden would be compared with itself.
Status check_apart(const std::string& golden, const std::vector<std::string>& roots, const std::string& source) {
  const std::string g = where(golden);
  for (const auto& root : roots) {
    const std::string r = where(root);
    if (within(g, r))
      return make_error(source, Stage::kConfig,
                        "golden " + golden + " is inside the watched root " + root +
                            ": watch would compact the golden as its own dump; give a golden outside every watched "
                            "root");
    if (within(r, g))
      return make_error(source, Stage::kConfig,
                        "the watched root " + root + " is inside the golden " + golden +
                            ": the dump would be compared with itself; give the golden's own directory");
  }
  return ok_status();
}

// As for compare's -mf (msit's meaning): the directory holding op_mapping_file.json.
Status check_mapping_dir(const std::string& path) {
  const std::string source = "op_mapping_file " + path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return make_sys_error(source, Stage::kConfig, "cannot look at it", errno);
  if (!S_ISDIR(st.st_mode))
    return make_error(source, Stage::kConfig,
                      "not a directory: give the directory holding op_mapping_file.json, as for compare -mf");
  return ok_status();
}

// What the root and the golden hold (common/resolve/resolve.h) must not be refused: a dump_path
// with two GE dumps, a torch root with several processes. Either may still be empty (being dumped).
Status check_resolvable(const LiveGolden& g, const std::string& source) {
  resolve::PairOptions po;
  po.missing_ok = true;
  po.command = [](const std::string& m, const std::string& golden) {
    return "msit-compact watch " + m + " --golden " + golden;
  };
  Result<resolve::ResolvedPair> p = resolve::resolve_pair(g.root, g.golden, po);
  if (!p.ok()) return make_error(source, Stage::kConfig, p.error().to_string());
  return ok_status();
}

}  // namespace

LiveGolden parse_golden_spec(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) return LiveGolden{"", std::string(text)};
  return LiveGolden{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

Status check_live_settings(LiveSettings& live, const std::vector<std::string>& roots, const LiveCheck& c) {
  std::vector<LiveGolden> out;
  for (LiveGolden g : live.goldens) {
    const std::string spec = g.root.empty() ? g.golden : g.root + "=" + g.golden;
    const std::string source = c.source + " " + spec;
    if (g.golden.empty()) return make_error(source, Stage::kConfig, "no golden directory: give GOLDEN or ROOT=GOLDEN");
    if (g.root.empty()) {
      if (roots.size() != 1)
        return make_error(source, Stage::kConfig,
                          "a golden without ROOT= pairs the only watched root, but " + std::to_string(roots.size()) +
                              " roots are watched (" + list(roots) + "): give ROOT=GOLDEN for each");
      g.root = roots.front();
    } else {
      const std::string want = where(g.root);
      auto it = std::find_if(roots.begin(), roots.end(), [&want](const std::string& r) { return where(r) == want; });
      if (it == roots.end()) {
        if (c.skip_other_roots) continue;
        return make_error(source, Stage::kConfig,
                          g.root + " is not a watched root (watched: " + list(roots) +
                              "); give ROOT as one of the watched directories (a golden path with '=' in it also "
                              "needs ROOT=)");
      }
      g.root = *it;
    }
    for (const auto& prev : out)
      if (prev.root == g.root)
        return make_error(
            source, Stage::kConfig,
            "the watched root " + g.root + " already has the golden " + prev.golden + ": give one golden per root");
    g.golden = absolute(g.golden);
    MSIT_TRY(check_golden_dir(g.golden, source));
    MSIT_TRY(check_apart(g.golden, roots, source));
    MSIT_TRY(check_resolvable(g, source));
    out.push_back(std::move(g));
  }
  live.goldens = std::move(out);
  if (live.enabled() && !live.op_mapping_file.empty()) MSIT_TRY(check_mapping_dir(live.op_mapping_file));
  return ok_status();
}

}  // namespace msit::daemon
