// Walks dump trees once and reproduces msit's token / group / rank detection (docs/formats/fx-npy.md §3,
// docs/formats/ge-dump.md §10).
#include "common/compare/dump_index.h"

#include "common/formats/dump_name.h"
#include "common/formats/graph_text.h"
#include "common/io/derived_names.h"
#include "common/io/tree_walk.h"
#include "common/store/store_catalog.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <system_error>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace msit {
namespace {

struct DirEntry {
  std::string disk_name;  // an entry read from the directory itself
  bool is_dir = false;
  bool is_file = false;
  // A raw file known only from the summary store covering the directory (raw data removed):
  // its name stays in the process-wide catalog, not copied into each listing.
  const store::StoredName* stored = nullptr;
  const std::string* store_db = nullptr;
  std::string_view name() const { return stored != nullptr ? std::string_view(stored->name) : disk_name; }
};

// Which regular files a listing keeps (all when empty). Trees hold 100,000s of dump files and
// most walks look for a handful of names: skipped names cost no allocation and no sorting.
using FileFilter = std::function<bool(std::string_view name)>;

// The raw files of `dir` that only its summary store still knows, as file entries. The
// store's path strings live as long as the process-wide catalog.
void add_stored_entries(const std::string& dir, const FileFilter& keep_file, std::vector<DirEntry>& out) {
  const std::string* db_name = nullptr;
  const auto* names = store::StoreCatalog::instance().stored_in(dir, &db_name);
  if (names == nullptr) return;
  for (const auto& n : *names) {
    if (keep_file && !keep_file(n.name)) continue;
    DirEntry e;
    e.is_file = true;
    e.stored = &n;
    e.store_db = n.db != nullptr ? n.db : db_name;  // several stores may cover one directory
    out.push_back(std::move(e));
  }
}

// The sub-directories the stores covering `dir` record files below and that are not on disk
// (anymore), merged into the sorted listing `out` as directories.
void add_stored_dirs(const std::string& dir, std::vector<DirEntry>& out) {
  const std::vector<std::string> stored = store::StoreCatalog::instance().stored_subdirs(dir);
  if (stored.empty()) return;
  const auto on_disk = static_cast<std::ptrdiff_t>(out.size());
  for (const std::string& name : stored) {
    auto at = std::lower_bound(out.begin(), out.begin() + on_disk, name,
                               [](const DirEntry& e, const std::string& n) { return e.name() < n; });
    if (at != out.begin() + on_disk && at->name() == name) continue;  // on disk (a dir, or a file: kept as it is)
    DirEntry e;
    e.disk_name = name;
    e.is_dir = true;
    out.push_back(std::move(e));
  }
  std::inplace_merge(out.begin(), out.begin() + on_disk, out.end(),
                     [](const DirEntry& a, const DirEntry& b) { return a.name() < b.name(); });
}

// Sorted listing; symlinks are neither dirs nor files here, so they are never followed.
std::vector<DirEntry> list_dir(const std::string& dir, const FileFilter& keep_file = {}) {
  std::vector<DirEntry> out;
  Status listed = list_dir_path(dir, [&](std::string_view n, EntryType type) {
    if (type == EntryType::kFile && keep_file && !keep_file(n)) return;
    DirEntry e;
    e.disk_name = n;
    e.is_dir = type == EntryType::kDirectory;
    e.is_file = type == EntryType::kFile;
    out.push_back(std::move(e));
  });
  // A directory that is gone (a store copied without its dump's directories, or emptied and
  // removed after compaction) still holds what its store records there: listed on.
  if (!listed.ok() && listed.error().sys_errno != ENOENT) return out;
  auto by_name = [](const DirEntry& a, const DirEntry& b) { return a.name() < b.name(); };
  std::sort(out.begin(), out.end(), by_name);
  add_stored_dirs(dir, out);
  // The store's names come sorted (and a stored directory holds 100,000s of them): merged, not
  // sorted again. On a tie the file on disk comes first.
  const auto on_disk = static_cast<std::ptrdiff_t>(out.size());
  add_stored_entries(dir, keep_file, out);
  std::inplace_merge(out.begin(), out.begin() + on_disk, out.end(), by_name);
  return out;
}

// Bytes on disk, looked up only when two files claim one GE op (msit keeps the larger).
// The raw file's size: on disk, or as its store recorded it (0 when unknown).
uint64_t raw_size(const SourceFile& f) {
  if (f.kind == SourceKind::kStored) {
    auto size = store::StoreCatalog::instance().raw_size(*f.store_db, f.store_id);
    return size.ok() ? *size : 0;
  }
  struct stat st {};
  return ::lstat(f.path().c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

std::string join(const std::string& dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out += dir;
  if (!dir.empty() && dir.back() != '/') out += '/';
  out += name;
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int64_t digits_or(std::string_view s, int64_t fallback) {
  if (!all_digits(s) || s.size() > 18) return fallback;
  return std::stoll(std::string(s));
}

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

std::string base_of(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// Pre-order walk in sorted order (os.walk top-down with sorted names); visit returns false to
// stop. visit may move the entries of a directory without sub-directories (nothing follows them).
void walk(const std::string& dir, int depth,
          const std::function<bool(const std::string&, std::vector<DirEntry>&)>& visit, bool* stop,
          const FileFilter& keep_file = {}, const SkipDir& skip = {}) {
  if (*stop || depth > 64) return;
  if (depth > 0 && skip && skip(dir)) return;
  auto entries = list_dir(dir, keep_file);
  std::vector<std::string> subdirs;
  for (const auto& e : entries) {
    if (e.is_dir) subdirs.push_back(join(dir, e.name()));
  }
  if (!visit(dir, entries)) {
    *stop = true;
    return;
  }
  for (const auto& sub : subdirs) {
    walk(sub, depth + 1, visit, stop, keep_file, skip);
    if (*stop) return;
  }
}

// One source per raw file: a raw file beats its summary, which beats a _min_max file.
std::vector<SourceFile> sources_in(const std::string& dir, const std::vector<DirEntry>& entries) {
  struct Candidate {
    std::string_view raw_name;  // the entry's name, or a derived name's raw name in `derived`
    SourceKind kind;
    const DirEntry* entry;
  };
  std::deque<std::string> derived;  // stable addresses for the views above
  std::vector<Candidate> found;
  found.reserve(entries.size());
  for (const auto& e : entries) {
    if (!e.is_file) continue;
    if (e.stored != nullptr) {
      found.push_back(Candidate{e.name(), SourceKind::kStored, &e});
      continue;
    }
    auto raw = raw_name_of(e.name());
    if (!raw) continue;
    std::string_view raw_name = raw->first == e.name() ? e.name() : derived.emplace_back(std::move(raw->first));
    found.push_back(Candidate{raw_name, raw->second, &e});
  }
  // Same directory, so ordering by name is ordering by raw_path; the best kind comes first.
  // Usually already in order (the listing is sorted and suffixes rarely reorder names).
  auto before = [](const Candidate& a, const Candidate& b) {
    int c = a.raw_name.compare(b.raw_name);
    return c != 0 ? c < 0 : static_cast<int>(a.kind) < static_cast<int>(b.kind);
  };
  if (!std::is_sorted(found.begin(), found.end(), before)) std::sort(found.begin(), found.end(), before);
  std::vector<SourceFile> out;
  out.reserve(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    if (i > 0 && found[i].raw_name == found[i - 1].raw_name) continue;  // a worse kind of the same file
    SourceFile f;
    f.raw_path = join(dir, found[i].raw_name);
    f.kind = found[i].kind;
    if (const DirEntry* e = found[i].entry; e->stored != nullptr) {
      f.store_db = e->store_db;
      f.store_id = e->stored->id;
    } else if (e->name() != found[i].raw_name) {
      f.disk_path = join(dir, e->name());
    }
    out.push_back(std::move(f));
  }
  return out;  // sorted by raw_path
}

void add_ge_files(TokenFiles& tok, std::vector<SourceFile> files, std::vector<std::string>& warnings) {
  std::unordered_map<std::string, size_t> where;  // op name -> position in ge_ops
  for (size_t i = 0; i < tok.ge_ops.size(); ++i) where.emplace(tok.ge_ops[i].first, i);
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.raw_path < b.raw_path; });
  for (auto& f : files) {
    const std::string_view name = f.raw_name();
    auto ext_pos = name.find_last_of('.');
    std::string_view ext = ext_pos == std::string_view::npos ? "" : name.substr(ext_pos);
    if (ext == ".txt" || ext == ".npy" || ext == ".bin" || ext == ".csv") continue;  // msit skips these
    auto op = msit_ge_op_name(name);
    if (!op) {
      warnings.push_back(f.path() + ": not a GE dump name (needs at least 5 dot-separated parts); skipped");
      continue;
    }
    auto [at, fresh] = where.emplace(*op, tok.ge_ops.size());
    if (fresh) {
      tok.ge_ops.emplace_back(*op, std::move(f));
      continue;
    }
    SourceFile& old = tok.ge_ops[at->second].second;
    if (old.size == 0) old.size = raw_size(old);
    f.size = raw_size(f);
    const SourceFile& kept = f.size > old.size ? f : old;
    warnings.push_back("duplicated op name " + *op + ": " + std::string(old.raw_name()) + ", " +
                       std::string(f.raw_name()) + "; keeping the larger file " + std::string(kept.raw_name()));
    if (f.size > old.size) old = std::move(f);
  }
}

void add_fx_files(TokenFiles& tok, std::vector<SourceFile> files) {
  for (auto& f : files) {
    if (!ends_with(f.raw_name(), ".npy")) continue;
    bool is_input = false;
    std::string key = msit_fx_node_key(f.raw_name(), &is_input);
    auto& node = tok.fx_nodes[std::move(key)];
    (is_input ? node.inputs : node.outputs).push_back(std::move(f));
  }
}

// msit judge_single_or_multi_device: > 1 sub-dir, or one 14-digit time dir holding > 1 sub-dir.
bool is_multi_device(const std::string& root) {
  auto entries = list_dir(root);
  size_t dirs = std::count_if(entries.begin(), entries.end(), [](const DirEntry& e) { return e.is_dir; });
  if (dirs > 1) return true;
  for (const auto& e : entries) {
    if (e.is_dir && e.name().size() == 14 && all_digits(e.name())) {
      auto inner = list_dir(join(root, e.name()));
      return std::count_if(inner.begin(), inner.end(), [](const DirEntry& x) { return x.is_dir; }) > 1;
    }
  }
  return false;
}

// A directory on disk, or one that is gone but that a store covering it records files below.
bool dir_or_stored(const std::string& root) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(root, ec);
  if (fs::is_directory(st)) return true;
  if (fs::exists(st)) return false;
  std::string db;
  return !store::StoreCatalog::instance().stored_subdirs(root).empty() ||
         store::StoreCatalog::instance().stored_in(root, &db) != nullptr;
}

}  // namespace

std::string_view SourceFile::raw_name() const {
  const void* slash = ::memrchr(raw_path.data(), '/', raw_path.size());
  if (slash == nullptr) return raw_path;
  const size_t at = static_cast<size_t>(static_cast<const char*>(slash) - raw_path.data());
  return std::string_view(raw_path).substr(at + 1);
}

const SourceFile* TokenFiles::ge_file(std::string_view op_name) const {
  for (const auto& [name, f] : ge_ops) {
    if (name == op_name) return &f;
  }
  return nullptr;
}

std::optional<std::string> msit_ge_op_name(std::string_view n) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = n.find('.', start);
    parts.push_back(n.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() < 5) return std::nullopt;
  std::string op;
  for (size_t i = 1; i + 3 < parts.size(); ++i) {
    if (i > 1) op.push_back('.');
    op.append(parts[i]);
  }
  return op;
}

std::string msit_fx_node_key(std::string_view n, bool* is_input) {
  bool in = n.find(".INPUT.") != std::string_view::npos;
  if (is_input) *is_input = in;
  size_t cut = n.find(in ? ".INPUT." : ".OUTPUT.");
  return std::string(cut == std::string_view::npos ? n : n.substr(0, cut));
}

// Names starting with '.' are never dump data: they include our own temps, claims and lock.
static_assert(kTempPrefix.starts_with('.') && kClaimPrefix.starts_with('.') && kLockName.starts_with('.'));

std::optional<std::pair<std::string, SourceKind>> raw_name_of(std::string_view n) {
  if (n.empty() || n[0] == '.') return std::nullopt;
  if (is_store_file_name(n)) return std::nullopt;  // read through it
  if (std::optional<DerivedName> d = derived_name_of(n)) {
    switch (d->kind) {
      case DerivedKind::kSummary: return std::make_pair(std::move(d->raw_name), SourceKind::kSummary);
      case DerivedKind::kMinMaxNpy:
      case DerivedKind::kMinMaxNpz: return std::make_pair(std::move(d->raw_name), SourceKind::kMinMax);
      case DerivedKind::kArchive: {
        // An archive holds the raw bytes: it is compared exactly, like the raw file.
        auto inner = raw_name_of(d->raw_name);
        if (!inner || inner->second != SourceKind::kRaw) return std::nullopt;
        return inner;
      }
    }
  }
  if (n.ends_with(kStatsCsvSuffix)) {
    if (!parse_stats_csv_name(n)) return std::nullopt;
    return std::make_pair(std::string(n.substr(0, n.size() - kStatsCsvSuffix.size())), SourceKind::kStatsCsv);
  }
  if (ends_with(n, ".json")) return std::nullopt;
  return std::make_pair(std::string(n), SourceKind::kRaw);
}

std::optional<int64_t> rank_of_dir_name(std::string_view n) {
  if (n.substr(0, 9) != "worldsize") return std::nullopt;
  size_t r = n.rfind("rank");
  if (r == std::string_view::npos) return std::nullopt;
  std::string_view digits = n.substr(r + 4);
  if (!all_digits(digits) || digits.size() > 18) return std::nullopt;
  return std::stoll(std::string(digits));
}

std::string absolute_path(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) return p;
  std::string s = a.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::vector<std::string> find_graph_files(const std::string& root, std::optional<int64_t> rank) {
  auto is_graph = [](std::string_view n) { return is_original_graph_file_name(n); };
  std::vector<std::pair<uint64_t, std::string>> found;
  bool stop = false;
  std::string rank_tag = rank ? "rank_" + std::to_string(*rank) + "_" : "";
  walk(
      root, 0,
      [&](const std::string& dir, std::vector<DirEntry>& entries) {
        for (const auto& e : entries) {
          if (!e.is_file) continue;
          if (rank && e.name().find(rank_tag) == std::string::npos) continue;
          std::optional<uint64_t> key = graph_file_sort_key(e.name());
          if (!key) continue;  // msit requires a digit run
          found.emplace_back(*key, join(dir, e.name()));
        }
        return true;
      },
      &stop, is_graph);
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

namespace {

bool is_fx_file_name(std::string_view n) {
  if (n.find(".INPUT.") == std::string_view::npos && n.find(".OUTPUT.") == std::string_view::npos) return false;
  auto raw = raw_name_of(n);
  return raw && ends_with(raw->first, ".npy") &&
         (raw->first.find(".INPUT.") != std::string::npos || raw->first.find(".OUTPUT.") != std::string::npos);
}

// What find_graph_files keeps: the graph prefix, ".txt", and a digit run (msit's sort key).
bool is_graph_file_name(std::string_view n) {
  return is_original_graph_file_name(n) && graph_file_sort_key(n).has_value();
}

}  // namespace

TreeFacts tree_facts(const std::string& root) {
  // One walk for both answers: listing a directory of 100,000 dump files is the cost.
  TreeFacts f;
  bool stop = false;
  auto look = [&](std::string_view n) {
    if (!f.graph_files && is_graph_file_name(n)) f.graph_files = true;
    if (!f.fx_files && is_fx_file_name(n)) f.fx_files = true;
    return false;  // nothing is kept: the walk only needs the answers
  };
  walk(
      root, 0, [&](const std::string&, std::vector<DirEntry>&) { return !(f.graph_files && f.fx_files); }, &stop, look);
  return f;
}

std::map<int64_t, std::string> find_rank_dirs(const std::string& root) {
  std::map<int64_t, std::string> out;
  for (const auto& e : list_dir(root)) {
    if (!e.is_dir) continue;
    if (auto r = rank_of_dir_name(e.name())) out[*r] = join(root, e.name());
  }
  return out;
}

Result<DumpTree> index_ge_tree(const std::string& root_in, bool rank_layout, const SkipDir& skip) {
  std::string root = absolute_path(root_in);
  std::error_code ec;
  if (!dir_or_stored(root)) return make_error(root, Stage::kIndex, "not a directory");
  DumpTree tree;
  tree.kind = TreeKind::kGe;
  tree.root = root;
  bool multi = rank_layout ? false : is_multi_device(root);
  std::vector<std::string> leaves;
  std::map<std::string, std::vector<DirEntry>> leaf_entries;
  bool stop = false;
  walk(
      root, 0,
      [&](const std::string& dir, std::vector<DirEntry>& entries) {
        bool has_sub = std::any_of(entries.begin(), entries.end(), [](const DirEntry& e) { return e.is_dir; });
        if (!has_sub) {
          leaves.push_back(dir);
          leaf_entries[dir] = std::move(entries);
        }
        return true;
      },
      &stop, {}, skip);
  std::sort(leaves.begin(), leaves.end());  // msit: sorted(os.walk(...)) by path
  std::map<int64_t, std::map<int64_t, std::vector<SourceFile>>> by_group;
  std::map<int64_t, std::string> group_names;
  for (const auto& leaf : leaves) {
    fs::path p(leaf);
    std::string parent =
        multi ? p.parent_path().parent_path().parent_path().filename().string() : p.parent_path().filename().string();
    int64_t gid = digits_or(parent, 0);
    int64_t tid = digits_or(base_of(leaf), 0);
    group_names.emplace(gid, parent);
    auto files = sources_in(leaf, leaf_entries[leaf]);
    auto& dst = by_group[gid][tid];
    dst.insert(dst.end(), files.begin(), files.end());
  }
  for (auto& [gid, tokens] : by_group) {
    DumpGroup g;
    g.key = group_names[gid];
    for (auto& [tid, files] : tokens) add_ge_files(g.tokens[tid], std::move(files), tree.warnings);
    tree.groups.push_back(std::move(g));
  }
  return tree;
}

namespace {

// Directories whose sub-directories are all short digit names: msit's "token level".
std::vector<std::string> token_parents(const std::string& root, bool all, const SkipDir& skip = {}) {
  std::vector<std::string> out;
  bool stop = false;
  walk(
      root, 0,
      [&](const std::string& dir, std::vector<DirEntry>& entries) {
        bool any = false, digits = true;
        for (const auto& e : entries) {
          if (!e.is_dir) continue;
          any = true;
          digits = digits && e.name().size() < 12 && all_digits(e.name());
        }
        if (any && digits) {
          out.push_back(dir);
          return all;
        }
        return true;
      },
      &stop, {}, skip);
  return out;
}

std::vector<std::string> digit_subdirs(const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> v;
  for (const auto& e : list_dir(dir)) {
    if (e.is_dir) v.emplace_back(digits_or(e.name(), 0), join(dir, e.name()));
  }
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& x : v) out.push_back(std::move(x.second));
  return out;
}

void fill_fx_token(DumpGroup& g, int64_t token, const std::string& dir, const SkipDir& skip = {}) {
  if (skip && skip(dir)) return;
  TokenFiles tok;
  add_fx_files(tok, sources_in(dir, list_dir(dir)));
  if (!tok.fx_nodes.empty()) g.tokens[token] = std::move(tok);  // msit drops empty tokens
}

}  // namespace

Result<DumpTree> index_fx_tree(const std::string& root_in, bool rank_layout, const SkipDir& skip) {
  std::string root = absolute_path(root_in);
  std::error_code ec;
  if (!dir_or_stored(root)) return make_error(root, Stage::kIndex, "not a directory");
  DumpTree tree;
  tree.kind = TreeKind::kFx;
  tree.root = root;
  if (rank_layout) {
    // New layout: rank/gm_*/{step}; steps start at 0. Every gm_* group is kept (msprobe); msit
    // stops at the first and then cannot pair a second graph.
    for (const auto& parent : token_parents(root, true, skip)) {
      DumpGroup g;
      g.key = base_of(parent);
      for (const auto& step : digit_subdirs(parent)) fill_fx_token(g, digits_or(base_of(step), -1), step, skip);
      tree.groups.push_back(std::move(g));
    }
    if (tree.groups.empty()) {
      DumpGroup g;
      g.key = base_of(root);
      fill_fx_token(g, 0, root);
      tree.groups.push_back(std::move(g));
    }
    return tree;
  }
  auto parents = token_parents(root, false);
  if (parents.empty()) {  // flat directory of npy files: one token, no off-by-one to undo
    DumpGroup g;
    g.key = base_of(root);
    fill_fx_token(g, 0, root);
    tree.groups.push_back(std::move(g));
    tree.warnings.push_back(root + ": no step directories found; using the files directly in it as token 0");
    return tree;
  }
  // Old layouts: {step}/gm_*; steps start at 1 (token = step - 1); the i-th gm dir of every step
  // forms group i. Inconsistent gm counts use the minimum (msprobe).
  auto steps = digit_subdirs(parents.front());
  std::map<int64_t, std::vector<std::string>> gms;
  size_t n_groups = SIZE_MAX;
  for (const auto& step : steps) {
    std::vector<std::string> sub;
    for (const auto& e : list_dir(step)) {
      if (e.is_dir) sub.push_back(join(step, e.name()));
    }
    if (sub.empty()) sub.push_back(step);  // very old ./gm_*/{step}/ layout: files in the step dir
    n_groups = std::min(n_groups, sub.size());
    gms[digits_or(base_of(step), 0)] = std::move(sub);
  }
  if (n_groups == SIZE_MAX) n_groups = 0;
  for (size_t i = 0; i < n_groups; ++i) {
    DumpGroup g;
    g.key = base_of(gms.begin()->second[i]);
    for (const auto& [step, dirs] : gms) fill_fx_token(g, step - 1, dirs[i], skip);
    tree.groups.push_back(std::move(g));
  }
  for (const auto& [step, dirs] : gms) {
    if (dirs.size() != n_groups) {
      tree.warnings.push_back(root + ": step " + std::to_string(step) + " has " + std::to_string(dirs.size()) +
                              " graph dirs, others fewer; using the first " + std::to_string(n_groups));
    }
  }
  return tree;
}

}  // namespace msit
