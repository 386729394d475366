// Dump index: one walk of a dump tree (no symlinks followed) into ranks, graph groups, tokens
// and per-token files, detected exactly as msit does (docs/formats/fx-npy.md §3 and docs/formats/ge-dump.md §10).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/result.h"

namespace msit {

// What stands in a dump tree for one raw file.
// Declared in order of preference when several stand for one raw file.
enum class SourceKind : uint8_t { kRaw, kSummary, kStored, kMinMax, kStatsCsv };

// Trees hold 100,000s of them: compare's index keeps one per file, so no field repeats another.
struct SourceFile {
  // The file on disk when it is not raw_path itself (a summary, an archive, a _min_max file);
  // empty for raw and stored files, whose one path is raw_path. Read it through path().
  std::string disk_path;
  std::string raw_path;  // absolute path of the raw file it stands for: report cells, sort keys
  SourceKind kind = SourceKind::kRaw;
  uint64_t size = 0;  // the raw file's size, looked up only for duplicated GE op names (msit keeps the larger)
  // kStored: the summary store holding it (path = raw_path then), owned by the process-wide
  // StoreCatalog, and its row there.
  const std::string* store_db = nullptr;
  int64_t store_id = -1;

  // The base name of raw_path.
  std::string_view raw_name() const;
  // The file on disk: disk_path, or raw_path when the file is the raw one or stored.
  const std::string& path() const { return disk_path.empty() ? raw_path : disk_path; }
};

struct FxNodeFiles {
  std::vector<SourceFile> inputs, outputs;  // each sorted by raw_path (msit: sorted full path)
};

// The sort key (matching.h msit_sort_key) above every other: a token without GE files.
inline constexpr std::string_view kNoSortKey = "\xff\xff\xff\xff";

struct TokenFiles {
  // GE: op name -> file, in msit's dict insertion order (sorted raw paths, duplicates resolved).
  std::vector<std::pair<std::string, SourceFile>> ge_ops;
  std::map<std::string, FxNodeFiles> fx_nodes;  // FX: text before .INPUT. / .OUTPUT.
  // Set by an IndexDepth::kTokens index, which reads no file yet: the directories holding the
  // token's files (load_token_files reads them), and a key no GE file of the token sorts below
  // (kNoSortKey: it has none), which a streamed compare needs before the token is read.
  std::vector<std::string> dirs;
  std::string least_key;
  bool unread() const { return !dirs.empty(); }
  const SourceFile* ge_file(std::string_view op_name) const;
};

struct DumpGroup {
  std::string key;                       // model id / device id / gm dir, for messages
  std::map<int64_t, TokenFiles> tokens;  // token id -> files
};

enum class TreeKind : uint8_t { kGe, kFx };

struct DumpTree {
  TreeKind kind = TreeKind::kGe;
  std::string root;
  std::vector<DumpGroup> groups;      // paired by index with the sorted graph list
  std::vector<std::string> warnings;  // duplicates, skipped names, odd layouts
};

// File name rules (pure).
// GE: msit's split (>= 5 dot parts, op name = parts[1..n-4]); nullopt when msit would skip it.
std::optional<std::string> msit_ge_op_name(std::string_view raw_name);
// FX: msit's node key (text before .INPUT. or .OUTPUT.); is_input set from `.INPUT.`.
std::string msit_fx_node_key(std::string_view raw_name, bool* is_input);
// Maps a file name to the raw file it stands for; nullopt for names that are never dump data
// (temp files, archives, hidden files).
std::optional<std::pair<std::string, SourceKind>> raw_name_of(std::string_view file_name);
// "worldsize{W}_global_rank{R}" -> R (digits after the last "rank"); nullopt otherwise.
std::optional<int64_t> rank_of_dir_name(std::string_view dir_name);

// Tree facts used for mode detection.
std::vector<std::string> find_graph_files(const std::string& root, std::optional<int64_t> rank);
struct TreeFacts {
  bool graph_files = false;  // !find_graph_files(root, nullopt).empty()
  bool fx_files = false;     // an FX npy name (.INPUT. / .OUTPUT.), raw or stood in for
};
TreeFacts tree_facts(const std::string& root);  // one walk for both
// rank -> rank dir (direct sub-directories named worldsize*rank{R}; the last in sorted order wins).
std::map<int64_t, std::string> find_rank_dirs(const std::string& root);

// Directories an index leaves out without listing them (skip(dir) true): the live comparer's
// answered tokens whose directories have not changed (daemon/live_compare.h). Asked once per
// directory below the root, before it is listed.
using SkipDir = std::function<bool(const std::string& dir)>;

// How much of a tree an index holds. kFiles: every token's files (the live comparer, which
// keeps the trees between its steps). kTokens: the groups, tokens and their directories; a
// token's files are read when it is compared (load_token_files), so that an index of millions of
// files costs its tokens, not its files (docs/compare.md "Streaming").
enum class IndexDepth : uint8_t { kFiles, kTokens };

// Index one (rank) root. rank_layout: the tree came from a worldsize*_global_rank* dir.
Result<DumpTree> index_ge_tree(const std::string& root, bool rank_layout, const SkipDir& skip = {},
                               IndexDepth depth = IndexDepth::kFiles);
Result<DumpTree> index_fx_tree(const std::string& root, bool rank_layout, const SkipDir& skip = {},
                               IndexDepth depth = IndexDepth::kFiles);
// The files of a token that a kTokens index left unread, as a kFiles index holds them; the
// warnings a kFiles index gives for them (GE: skipped names, duplicated op names) are added.
TokenFiles load_token_files(TreeKind kind, const TokenFiles& listed, std::vector<std::string>& warnings);

// Absolute, lexically normal form of a path (no symlink resolution of the leaf).
std::string absolute_path(const std::string& p);

}  // namespace msit
