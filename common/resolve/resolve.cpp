// The resolver: from the path a user typed to the dump root a command reads (docs/resolve.md
// "How a path is resolved"), and the checks on a pair of them.
#include "common/resolve/resolve.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>

#include "common/compare/dump_index.h"
#include "common/formats/dump_name.h"
#include "common/formats/graph_text.h"
#include "common/io/derived_names.h"
#include "common/io/path_name.h"
#include "common/store/store_locator.h"

namespace msit::resolve {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() < 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
bool gm_dir(std::string_view n) { return starts_with(n, "gm_") && ends_with(n, "_dump"); }

// A directory that holds dumps itself (files, or the directories a root's top level has): it
// is the root, whatever its name (a GE dump_{ts} directory, a store copied into ./run1/).
bool holds_dumps(const DirView& v) {
  if (v.has_file(kStoreFileName)) return true;
  for (const std::string& d : v.dirs) {
    if (rank_of_dir_name(d) || all_digits(d)) return true;  // ranks, GE time dirs, steps, devices
  }
  for (const std::string& f : v.files) {
    switch (classify_name(f).kind) {
      case NameKind::kGeDump:
      case NameKind::kFxNpy:
      case NameKind::kSummary:
      case NameKind::kMinMaxNpy:
      case NameKind::kMinMaxNpz:
      case NameKind::kArchive:
      case NameKind::kStatsCsv: return true;
      case NameKind::kGraphText:
        if (is_original_graph_file_name(f)) return true;
        break;
      default: break;
    }
  }
  return false;
}

// A guess of a root's role from its top level, for the paired line only (compare's flow
// detection walks the trees).
std::optional<SideRole> role_by_content(const DirView& v) {
  for (const std::string& f : v.files)
    if (is_original_graph_file_name(f)) return SideRole::kGe;
  return std::nullopt;
}

struct Found {
  const LayoutEntry* entry;
  std::string path;
};

uint8_t preference(const LayoutEntry& e, Side side) {
  return side == Side::kMy ? e.my_preference : e.golden_preference;
}

std::string list_paths(const std::vector<Found>& f) {
  std::string out;
  for (const auto& x : f) out += (out.empty() ? "" : ", ") + x.path;
  return out;
}

// The torch hooks' process directory of a torch-hook root (the one under torch_tensors/), or
// an error when there are several (each is a run of its own).
Result<std::string> torch_process(const std::string& root, const CommandLine& cmd, Side side) {
  const std::string tensors = root + "/torch_tensors";
  const DirView v = view_dir(tensors);
  if (v.dirs.size() == 1) return tensors + "/" + v.dirs.front();
  if (v.dirs.empty()) return make_error(tensors, Stage::kDetect, "no process directory ({device}_{PID}) in it");
  std::string msg = std::to_string(v.dirs.size()) + " process directories (";
  for (size_t i = 0; i < v.dirs.size(); ++i) msg += (i ? ", " : "") + v.dirs[i];
  msg += "): give the one to compare";
  if (cmd) {
    const std::string one = tensors + "/" + v.dirs.front();
    msg += ", e.g. " + (side == Side::kMy ? cmd(shell_quote(one), "GOLDEN") : cmd("MY", shell_quote(one)));
  }
  return make_error(tensors, Stage::kDetect, msg);
}

// `abs` lies inside the torchair root `home`: the rank and token folders it names.
void place_inside(ResolvedSide& s, const std::string& home, const LayoutEntry& e) {
  std::vector<std::string> parts;
  for (const auto& p : std::filesystem::path(s.path.substr(home.size() + 1))) parts.push_back(p.string());
  const std::string& last = parts.back();
  const std::string parent = parts.size() >= 2 ? parts[parts.size() - 2] : base_name(home);
  s.rank = rank_of_dir_name(parts.front());
  const bool leaf = view_dir(s.path).dirs.empty();
  std::optional<int64_t> token;
  if (e.role == SideRole::kGe && leaf && all_digits(last)) token = std::stoll(last);
  if (e.role == SideRole::kFx) {
    // docs/formats/fx-npy.md §2-§3: steps count from 0 in the rank layout, from 1 before it.
    const int64_t shift = s.rank ? 0 : 1;
    if (all_digits(last) && (gm_dir(parent) || parent == "data_dump" || parts.size() == 1))
      token = std::stoll(last) - shift;
    else if (gm_dir(last) && parts.size() >= 2 && all_digits(parent)) token = std::stoll(parent) - shift;
  }
  s.token = token;
  s.kind = token ? GivenKind::kTokenDir : s.rank && parts.size() == 1 ? GivenKind::kRankDir : GivenKind::kInsideRoot;
  s.how = token                           ? "token " + std::to_string(*token) + " folder " + s.given + " of it"
          : s.kind == GivenKind::kRankDir ? "rank folder " + s.given + " of it"
                                          : s.given + " is inside it: the whole dump";
  s.path = home;
}

// A directory below (or at) a dump root that the layout table names.
bool resolve_in_root(ResolvedSide& s, const CommandLine& cmd, Side side, Status& st) {
  const std::string home = store::store_home_of(s.path);
  if (home.empty()) return false;
  const LayoutEntry* e = layout_of(view_dir(home));
  if (e == nullptr) return false;  // a GE time directory as the outermost root: compared as given
  s.family = e->family;
  s.role = e->role;
  s.kind = GivenKind::kDumpRoot;
  if (e->family == DumpFamily::kTorchair) {
    // A root nested in the home (msit_fx_dump/data_dump, PTA 7.1.0) is the home's dump as a whole.
    if (home != s.path && layout_of(view_dir(s.path)) == nullptr) place_inside(s, home, *e);
    s.path = home;
    return true;
  }
  if (e->role == SideRole::kTorch && home == s.path) {  // the ATB/torch flows read a process dir
    auto proc = torch_process(home, cmd, side);
    if (!proc.ok()) st = proc.error();
    else s.path = *proc;
  }
  return true;  // below an ATB/torch root the ATB/torch flows read the path as given
}

// The dump roots and dump_paths below a directory that is neither (a parent of the user's
// dump_path, a folder of runs), nearest first: read as a dump, its files would be paired under
// the wrong layout. A few levels and directories at most: this only decides what to say.
std::vector<std::string> dumps_below(const DirView& top) {
  constexpr size_t kMaxDepth = 3, kMaxDirs = 256;
  std::vector<std::string> found;
  std::vector<std::pair<std::string, size_t>> queue;  // breadth first: (path, depth)
  for (const std::string& d : top.dirs) queue.emplace_back(top.path + "/" + d, 1);
  for (size_t i = 0; i < queue.size() && i < kMaxDirs; ++i) {
    const auto [path, depth] = queue[i];
    const DirView v = view_dir(path);
    const bool dump_path = std::any_of(v.dirs.begin(), v.dirs.end(),
                                       [&](const std::string& d) { return layout_of(view_dir(path + "/" + d)); });
    if (layout_of(v) != nullptr || dump_path) {
      found.push_back(path);
      continue;
    }
    if (depth < kMaxDepth)
      for (const std::string& d : v.dirs) queue.emplace_back(path + "/" + d, depth + 1);
  }
  return found;
}

// A directory outside every root: a root by content, or the dump_path holding roots.
Status resolve_outside(ResolvedSide& s, const DirView& v, const CommandLine& cmd, Side side) {
  if (holds_dumps(v)) {
    s.kind = GivenKind::kDumpRoot;
    s.role = role_by_content(v);
    if (s.role) s.family = DumpFamily::kTorchair;
    return ok_status();
  }
  std::vector<Found> found;
  for (const std::string& d : v.dirs) {
    const std::string sub = s.path == "/" ? "/" + d : s.path + "/" + d;
    if (const LayoutEntry* e = layout_of(view_dir(sub))) found.push_back(Found{e, sub});
  }
  if (found.empty()) {
    const std::vector<std::string> below = dumps_below(v);
    if (below.empty()) return ok_status();  // kUnknown: nothing recognised (yet)
    std::string msg = "holds no dump itself but dumps further down (";
    for (size_t i = 0; i < below.size() && i < 4; ++i) msg += (i ? ", " : "") + below[i];
    msg += std::string(below.size() > 4 ? ", ..." : "") + "): give the one to compare";
    if (cmd) {
      const std::string one = shell_quote(below.front());
      msg += ", e.g. " + (side == Side::kMy ? cmd(one, "GOLDEN") : cmd("MY", one));
    }
    return make_error(s.path, Stage::kDetect, msg);
  }
  const DumpFamily fam = found.front().entry->family;
  if (std::any_of(found.begin(), found.end(), [&](const Found& f) { return f.entry->family != fam; })) {
    return make_error(s.path, Stage::kDetect,
                      "holds dumps of two families (" + list_paths(found) + "): give the dump to compare");
  }
  std::stable_sort(found.begin(), found.end(), [&](const Found& a, const Found& b) {
    return preference(*a.entry, side) < preference(*b.entry, side);
  });
  std::vector<Found> best;
  for (const Found& f : found)
    if (f.entry == found.front().entry) best.push_back(f);
  s.family = fam;
  s.role = found.front().entry->role;
  if (best.size() > 1 && s.role == SideRole::kFx &&
      std::all_of(best.begin(), best.end(), [](const Found& f) { return gm_dir(base_name(f.path)); })) {
    s.kind = GivenKind::kDumpRoot;  // the very old FX layout: ./gm_{ts}_dump/{step}/, one per graph
    return ok_status();
  }
  if (best.size() > 1) {
    std::string msg = "holds " + std::to_string(best.size()) + " " + std::string(role_text(*s.role)) + "s (" +
                      list_paths(best) + "): give the one to compare";
    if (cmd) {
      const std::string one = shell_quote(best.front().path);
      msg += ", e.g. " + (side == Side::kMy ? cmd(one, "GOLDEN") : cmd("MY", one));
    }
    return make_error(s.path, Stage::kDetect, msg);
  }
  s.kind = GivenKind::kDumpPath;
  s.how = "in dump_path " + s.given;
  s.path = best.front().path;
  if (s.role == SideRole::kTorch) { MSIT_ASSIGN_OR_RETURN(s.path, torch_process(s.path, cmd, side)); }
  return ok_status();
}

// The other roots of the same family in a dump_path, for the notes.
void note_others(const ResolvedSide& s, Side side, const ResolvedSide& other, std::vector<std::string>& notes) {
  if (s.kind != GivenKind::kDumpPath) return;
  const DirView v = view_dir(absolute_path(s.given));
  for (const std::string& d : v.dirs) {
    const std::string abs = v.path + "/" + d;
    if (abs == s.path || starts_with(s.path, abs + "/") || abs == other.path) continue;
    const LayoutEntry* e = layout_of(view_dir(abs));
    if (e == nullptr || e->family != s.family) continue;
    notes.push_back(std::string(side == Side::kMy ? "my" : "golden") + " dump_path " + s.given + " also holds " + abs +
                    " (" + std::string(role_text(e->role)) + "): give it as --" +
                    (side == Side::kMy ? "my" : "golden") + "-path to compare it instead");
  }
}

std::string side_text(const ResolvedSide& s) {
  std::string out = s.path + " (";
  out += s.role ? std::string(role_text(*s.role)) : std::string("dump");
  if (!s.how.empty()) out += ", " + s.how;
  return out + ")";
}

// One value both sides and --rank agree on, or the error naming who asks for what.
Result<std::optional<int64_t>> agree(const char* what, std::optional<int64_t> mine, std::optional<int64_t> gold,
                                     std::optional<int64_t> option, const std::string& my_path) {
  std::optional<int64_t> out;
  for (auto v : {mine, gold, option}) {
    if (!v) continue;
    if (out && *out != *v) {
      auto show = [](std::optional<int64_t> x) { return x ? std::to_string(*x) : std::string("-"); };
      return make_error(my_path, Stage::kDetect,
                        std::string("the paths and options ask for different ") + what + "s (my " + show(mine) +
                            ", golden " + show(gold) + ", --rank " + show(option) +
                            "): give folders (or --rank) of one " + what + ", or the dump roots to compare every " +
                            what);
    }
    out = v;
  }
  return out;
}

// The pair is one dump on both sides: refused, with the command line for what was probably meant.
Status refuse_same(const ResolvedPair& p, const std::string& my_in, bool same_given, const PairOptions& o) {
  struct stat st {};
  const bool file = ::stat(absolute_path(my_in).c_str(), &st) == 0 && S_ISREG(st.st_mode);
  std::string msg = same_given ? std::string("my path and golden path are the same ") + (file ? "file" : "directory")
                               : "my " + p.my.path + " and golden " + p.golden.path + " are the same dump";
  msg += ": a dump compared with itself passes whatever it holds; these do not look like two runs of one model";
  if (o.command && same_given) {
    const DirView v = view_dir(absolute_path(my_in));
    std::string ge, fx;
    for (const std::string& d : v.dirs) {
      const DirView sub = view_dir(v.path + "/" + d);
      const LayoutEntry* e = layout_of(sub);
      const std::string typed = my_in.back() == '/' ? my_in + d : my_in + "/" + d;
      if (e && e->role == SideRole::kGe && ge.empty()) ge = typed;
      if (e && e->role == SideRole::kFx && fx.empty()) fx = typed;
    }
    if (!ge.empty() && !fx.empty())
      msg += "; to compare its GE dump with its FX dump: " + o.command(shell_quote(ge), shell_quote(fx));
  }
  return make_error(my_in, Stage::kDetect, msg);
}

}  // namespace

std::string shell_quote(const std::string& p) {
  const bool plain = !p.empty() && std::all_of(p.begin(), p.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("/._-+=:,@%").find(c) != std::string_view::npos;
  });
  if (plain) return p;
  std::string out = "'";
  for (char c : p) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<ResolvedSide> resolve_side(const std::string& given, Side side, const CommandLine& cmd, bool missing_ok) {
  ResolvedSide s;
  s.given = given;
  s.path = absolute_path(given);
  struct stat st {};
  if (::stat(s.path.c_str(), &st) != 0) {
    if (errno == ENOENT && missing_ok) return s;  // kUnknown: a dump not begun yet
    if (errno == ENOENT) return make_error(s.path, Stage::kOpen, "no such file or directory");
    return make_sys_error(s.path, Stage::kOpen, "cannot look at it", errno);
  }
  if (S_ISREG(st.st_mode)) {
    if (base_name(s.path) != kStoreFileName) {
      s.kind = GivenKind::kFile;
      return s;
    }
    s.kind = GivenKind::kStoreFile;
    s.path = parent_dir(s.path);
    s.how = "its summary store given";
    s.role = role_by_content(view_dir(s.path));
    if (s.role) s.family = DumpFamily::kTorchair;
    return s;
  }
  if (!S_ISDIR(st.st_mode)) return make_error(s.path, Stage::kOpen, "neither a directory nor a regular file");
  Status in_root = ok_status();
  if (resolve_in_root(s, cmd, side, in_root)) {
    if (!in_root.ok()) return in_root.error();
    return s;
  }
  const DirView v = view_dir(s.path);
  // Not empty if it holds anything: a FIFO or device where a tensor should be is refused by name
  // later ("not a regular file"), which says more than "empty".
  if (!missing_ok && v.dirs.empty() && v.files.empty() && v.others == 0)
    return make_error(
        s.path, Stage::kOpen,
        std::string("the ") + (side == Side::kMy ? "my" : "golden") + " directory is empty: nothing to compare");
  MSIT_TRY(resolve_outside(s, v, cmd, side));
  return s;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string ResolvedPair::line() const {
  std::string out = "paired: my " + side_text(my) + " with golden " + side_text(golden);
  if (rank) out += "; rank " + std::to_string(*rank) + " only";
  if (token) out += "; token " + std::to_string(*token) + " only";
  return out;
}

Result<ResolvedPair> resolve_pair(const std::string& my_in, const std::string& golden_in, const PairOptions& o) {
  ResolvedPair p;
  MSIT_ASSIGN_OR_RETURN(p.my, resolve_side(my_in, Side::kMy, o.command, o.missing_ok));
  MSIT_ASSIGN_OR_RETURN(p.golden, resolve_side(golden_in, Side::kGolden, o.command, o.missing_ok));
  const bool same_given = same_file(absolute_path(my_in), absolute_path(golden_in));
  if (same_given) return refuse_same(p, my_in, true, o).error();
  if (same_file(p.my.path, p.golden.path)) return refuse_same(p, my_in, false, o).error();
  MSIT_ASSIGN_OR_RETURN(p.rank, agree("rank", p.my.rank, p.golden.rank, o.rank, p.my.path));
  MSIT_ASSIGN_OR_RETURN(p.token, agree("token", p.my.token, p.golden.token, std::nullopt, p.my.path));
  note_others(p.my, Side::kMy, p.golden, p.notes);
  note_others(p.golden, Side::kGolden, p.my, p.notes);
  return p;
}

}  // namespace msit::resolve
