// The end of every compare flow: exit status, and the zero-pairs error with its hint.
#include "cli/compare_outcome.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <utility>

#include "cli/options.h"
#include "common/compare/dump_index.h"
#include "common/io/derived_names.h"
#include "common/io/output_file.h"
#include "common/io/tree_walk.h"

namespace msit::cli {
namespace {

namespace fs = std::filesystem;

// Bounds of the look-around walks: an error message must not take minutes on a huge tree.
constexpr int kHintDepth = 6;
constexpr size_t kHintDirs = 4000;

struct DirListing {
  std::vector<std::string> dirs, files;
};

DirListing list(const std::string& dir) {
  DirListing l;
  (void)list_dir_path(dir, [&](std::string_view n, EntryType t) {
    if (t == EntryType::kDirectory) l.dirs.emplace_back(n);
    else if (t == EntryType::kFile) l.files.emplace_back(n);
  });
  std::sort(l.dirs.begin(), l.dirs.end());
  std::sort(l.files.begin(), l.files.end());
  return l;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// A torch token dir holds `root`/`root.*` module dirs; an ATB token dir holds `{n}_{Type}` node
// dirs with `before/` or `after/` inside (a process dir `{PID}_npu{d}` has neither).
bool is_token_dir(const std::string& dir, const DirListing& l) {
  for (const auto& d : l.dirs) {
    if (d == "root" || starts_with(d, "root.")) return true;
    size_t u = d.find('_');
    if (u == 0 || u == std::string::npos || u + 1 >= d.size() || !std::isalpha(static_cast<unsigned char>(d[u + 1])))
      continue;
    if (!std::all_of(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(u),
                     [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    DirListing node = list((fs::path(dir) / d).string());
    if (std::any_of(node.dirs.begin(), node.dirs.end(),
                    [](const std::string& n) { return n == "after" || n == "before"; }))
      return true;
  }
  return false;
}

// The directory a flow expects on one side, judged from its name and its entries.
bool expected_dir(FlowFamily flow, bool golden, const std::string& dir, const DirListing& l) {
  const std::string name = fs::path(dir).filename().string();
  switch (flow) {
    case FlowFamily::kMindie:
      // My side is searched to any depth (common/compare_atb/mindie.cpp): no better directory.
      return golden &&
             std::any_of(l.dirs.begin(), l.dirs.end(), [](const std::string& d) { return starts_with(d, "root."); });
    case FlowFamily::kAtbTorch:
    case FlowFamily::kAtbStats:
    case FlowFamily::kLegacyAit: return is_token_dir(dir, l);
    case FlowFamily::kTorchair:
      if (!golden) {
        return name == "msit_ge_dump" || name == "msprobe_ge_dump" ||
               std::any_of(l.files.begin(), l.files.end(),
                           [](const std::string& f) { return starts_with(f, "dynamo_") && ends_with(f, ".txt"); });
      }
      return name == "msit_fx_dump" || name == "msprobe_fx_dump" || name == "data_dump" ||
             (starts_with(name, "gm_") && ends_with(name, "_dump"));
    default: return false;
  }
}

}  // namespace

static_assert(static_cast<int>(CompareStatus::kOk) == kExitOk);
static_assert(static_cast<int>(CompareStatus::kDivergence) == kExitFailures);
static_assert(static_cast<int>(CompareStatus::kUnreadable) == kExitBadInput);
static_assert(static_cast<int>(CompareStatus::kInconclusive) == kExitInconclusive);

int compare_exit_status(const RowTally& t, bool quiet, const Coverage* coverage) {
  CompareOutcome o = compare_outcome(t, coverage);
  // Refused trees are an error: said also with -q (on stderr, as every error).
  if (o.status == CompareStatus::kUnreadable && coverage && coverage->unlike()) print_error("compare", o.line);
  else if (!quiet && !o.line.empty()) std::printf("%s\n", o.line.c_str());
  return static_cast<int>(o.status);
}

std::string describe_tree(const std::string& path) {
  size_t dumps = 0, summaries = 0, stores = 0, dirs = 0;
  std::vector<std::string> marked;  // directories whose names say what they hold
  std::deque<std::pair<std::string, int>> queue{{path, 0}};
  while (!queue.empty() && dirs < kHintDirs) {
    auto [dir, depth] = queue.front();
    queue.pop_front();
    ++dirs;
    DirListing l = list(dir);
    for (const auto& f : l.files) {
      if (is_store_file_name(f)) ++stores;
      else if (auto raw = raw_name_of(f)) ++dumps, summaries += raw->second != SourceKind::kRaw;
    }
    for (const auto& d : l.dirs) {
      std::string sub = (fs::path(dir) / d).string();
      bool named = d == "msit_ge_dump" || d == "msit_fx_dump" || d == "msprobe_ge_dump" || d == "msprobe_fx_dump" ||
                   d == "ait_dump" || d == "data_dump" || d == "tensors" || d == "torch_tensors" ||
                   starts_with(d, "msit_dump") || (starts_with(d, "gm_") && ends_with(d, "_dump"));
      if (named && marked.size() < 6) marked.push_back(fs::path(sub).lexically_relative(path).string());
      if (depth < kHintDepth) queue.emplace_back(sub, depth + 1);
    }
  }
  std::string out = std::to_string(dumps) + " dump files";
  if (summaries) out += " (" + std::to_string(summaries) + " of them summaries or archives)";
  if (stores) out += ", " + std::to_string(stores) + " summary store files";
  if (!marked.empty()) {
    out += "; dump directories:";
    for (const auto& m : marked) out += " " + m;
  }
  return out;
}

std::string probable_dir(FlowFamily flow, const std::string& path, bool golden) {
  std::deque<std::pair<std::string, int>> queue{{path, 0}};
  size_t seen = 0;
  while (!queue.empty() && seen++ < kHintDirs) {
    auto [dir, depth] = queue.front();
    queue.pop_front();
    DirListing l = list(dir);
    if (expected_dir(flow, golden, dir, l)) return depth == 0 ? std::string() : dir;
    if (depth < kHintDepth)
      for (const auto& d : l.dirs) queue.emplace_back((fs::path(dir) / d).string(), depth + 1);
  }
  // A path one level too deep: its parent is the directory.
  std::string parent = fs::path(absolute_path(path)).parent_path().string();
  if (!parent.empty() && parent != path && expected_dir(flow, golden, parent, list(parent))) return parent;
  return {};
}

int no_pairs_error(FlowFamily flow, const std::string& golden, const std::string& my, std::string_view looked_for) {
  std::string msg = std::string(family_name(flow)) + ": no pairs to compare: looked for " + std::string(looked_for) +
                    "; found instead: golden " + golden + ": " + describe_tree(golden) + "; my " + my + ": " +
                    describe_tree(my);
  print_error("compare", msg);
  print_dir_hints(flow, golden, my);
  return kExitBadInput;
}

void print_dir_hints(FlowFamily flow, const std::string& golden, const std::string& my) {
  for (bool g : {true, false}) {
    std::string dir = probable_dir(flow, g ? golden : my, g);
    // Roots of ATB/torch dumps are not recognised as such (the detection looks at token and
    // process dirs) and land in the torchair flow: point at their token dirs.
    if (dir.empty() && flow == FlowFamily::kTorchair) dir = probable_dir(FlowFamily::kAtbTorch, g ? golden : my, g);
    if (!dir.empty()) {
      std::fprintf(stderr, "msit-compact compare: hint: did you mean %s %s?\n", g ? "--golden-path" : "--my-path",
                   dir.c_str());
    }
  }
}

int write_html_file(const std::string& path, const std::vector<HtmlRank>& ranks, const std::string& title, bool quiet) {
  Status st = write_output_file(path, html_report(ranks, title));
  if (!st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  if (!quiet) std::printf("HTML report: %s\n", path.c_str());
  return kExitOk;
}

}  // namespace msit::cli
