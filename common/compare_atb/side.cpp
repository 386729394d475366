// Side discovery as msit's parsers do it (3.1), token keys (3.6) and sibling ranks (3.7).
#include "common/compare_atb/side.h"

#include <algorithm>
#include <filesystem>

#include "common/compare/dump_index.h"

namespace msit::atb {
namespace {

namespace fs = std::filesystem;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool is_digits(std::string_view s) {
  return !s.empty() && s.size() < 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec));
}
bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::vector<std::string> list_entries(const std::string& dir, bool dirs) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    auto st = it->symlink_status(e2);
    if (dirs ? fs::is_directory(st) : fs::is_regular_file(st)) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Numeric names ascending, then the others by name (Python's small-int set order, made total).
void sort_token_names(std::vector<std::string>& names) {
  std::stable_sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    bool da = is_digits(a), db = is_digits(b);
    if (da != db) return da;
    if (da) return std::stoll(a) < std::stoll(b);
    return a < b;
  });
}

struct AtbRoot {
  fs::path root, process;
  std::optional<std::string> token;
};

std::optional<AtbRoot> find_atb_root(const fs::path& p) {
  std::vector<fs::path> chain;
  for (fs::path q = p; chain.size() < 4 && q.has_filename(); q = q.parent_path()) chain.push_back(q);
  for (const fs::path& c : chain) {
    std::string name = c.filename().string();
    if (!starts_with(name, "msit_dump") && !starts_with(name, "ait_dump")) continue;
    if (!is_dir(c / "model") || list_entries((c / "model").string(), true).empty()) return std::nullopt;
    AtbRoot r;
    r.root = c;
    fs::path rel = p.lexically_relative(c);
    std::vector<std::string> parts;
    for (const auto& part : rel)
      if (part != ".") parts.push_back(part.string());
    if (parts.size() >= 2 && parts[0] == "tensors") {
      r.process = c / "tensors" / parts[1];
      if (parts.size() >= 3) r.token = parts[2];
    } else {
      auto procs = list_entries((c / "tensors").string(), true);
      if (procs.empty()) return std::nullopt;
      r.process = c / "tensors" / procs.front();
    }
    return r;
  }
  return std::nullopt;
}

std::optional<std::pair<fs::path, std::optional<std::string>>> find_torch_process(const fs::path& p) {
  if (is_file(p / "model_tree.json")) return std::make_pair(p, std::optional<std::string>());
  fs::path parent = p.parent_path();
  if (is_file(parent / "model_tree.json"))
    return std::make_pair(parent, std::optional<std::string>(p.filename().string()));
  fs::path grand = parent.parent_path();
  if (is_file(grand / "model_tree.json")) {
    return std::make_pair(grand, std::optional<std::string>(parent.filename().string()));
  }
  return std::nullopt;
}

Status load_atb_trees(DumpSide& s, const fs::path& root, const SideOptions& o) {
  std::string pid = s.process_name.substr(s.process_name.find_last_of('_') + 1);
  fs::path model = root / "model" / pid;
  if (!is_dir(model)) {
    auto pids = list_entries((root / "model").string(), true);
    model = root / "model" / pids.front();
    s.warnings.push_back("no topology for pid " + pid + ": using " + model.string());
  }
  bool transdata = is_file(root / "layer" / model.filename() / "TransdataOperation_0.json");
  std::vector<std::string> files;
  for (auto& f : list_entries(model.string(), false)) {
    if (f.size() > 5 && f.substr(f.size() - 5) == ".json") files.push_back(f);
  }
  if (files.empty())
    return make_error(model.string(), Stage::kTopology, "no model JSON: an ATB dump needs its model topology");
  std::vector<TopoTree> trees;
  uint32_t show = 0;
  for (const auto& f : files) {
    std::string path = (model / f).string();
    MSIT_ASSIGN_OR_RETURN(std::string text, read_topology_file(path));
    MSIT_ASSIGN_OR_RETURN(TopoTree t, parse_atb_model(text, path, transdata, show, o.legacy_start0));
    trees.push_back(std::move(t));
  }
  // Encode = smaller start, decode = the next; a single file is the decode tree (3.1.3).
  std::stable_sort(trees.begin(), trees.end(), [](const TopoTree& a, const TopoTree& b) { return a.start < b.start; });
  if (trees.size() > 2) {
    s.warnings.push_back(std::to_string(trees.size()) + " model files in " + model.string() +
                         ": only the first two are used");
    trees.resize(2);
  }
  // show_order follows the encode-then-decode order so that token filters and sorting agree.
  uint32_t order = 0;
  for (auto& t : trees)
    for (auto& n : t.nodes) n.show_order = ++order;
  s.trees = std::move(trees);
  if (s.trees.size() == 2) {
    s.encode_tree = 0;
    s.decode_tree = 1;
  } else s.decode_tree = 0;
  return ok_status();
}

void add_atb_tokens(DumpSide& s, const SideOptions& o) {
  std::vector<std::string> dirs = s.given_token ? std::vector<std::string>{*s.given_token} : list_dirs(s.process_dir);
  sort_token_names(dirs);
  bool two = s.trees.size() >= 2;
  bool warmup = o.msit_compat;
  if (two && !o.msit_compat) {
    // A warm-up ran prefill once before: the encode op's second setup (execCount 1) exists.
    const TopoTree& enc = s.trees[static_cast<size_t>(s.encode_tree)];
    warmup = enc.nodes.size() > 1 && is_dir(fs::path(s.process_dir) / "1" / enc.nodes[1].tensor_path);
    if (!warmup) s.warnings.push_back("no warm-up run detected: ATB dir 0 is tokens 0 (encode) and 1 (decode)");
  }
  auto add = [&](std::string key, const std::string& dir, TreeFilter f) {
    s.tokens.push_back(TokenDir{std::move(key), (fs::path(s.process_dir) / dir).string(), f});
  };
  for (const auto& d : dirs) {
    if (!is_digits(d) || !two) {
      add(d, d, TreeFilter::kAll);
      continue;
    }
    int64_t k = std::stoll(d);
    int64_t first = warmup ? 1 : 0;  // the dir holding prefill + first decode
    if (warmup && k == 0) add("warmup", d, TreeFilter::kAll);
    else if (k == first) {
      add(std::to_string(k - first), d, TreeFilter::kEncode);
      add(std::to_string(k - first + 1), d, TreeFilter::kDecode);
    } else add(std::to_string(warmup ? k : k + 1), d, TreeFilter::kAll);
  }
}

}  // namespace

std::vector<std::string> list_dirs(const std::string& dir) { return list_entries(dir, true); }

std::optional<SideKind> detect_side_kind(const std::string& path) {
  fs::path p(absolute_path(path));
  if (find_atb_root(p)) return SideKind::kAtb;
  if (find_torch_process(p)) return SideKind::kTorch;
  return std::nullopt;
}

Result<DumpSide> open_side(const std::string& path, const SideOptions& o) {
  fs::path p(absolute_path(path));
  DumpSide s;
  if (auto atb = find_atb_root(p)) {
    s.kind = SideKind::kAtb;
    s.process_dir = atb->process.string();
    s.process_name = atb->process.filename().string();
    s.given_token = atb->token;
    MSIT_TRY(load_atb_trees(s, atb->root, o));
    add_atb_tokens(s, o);
    return s;
  }
  auto torch = find_torch_process(p);
  if (!torch) {
    return make_error(path, Stage::kDetect,
                      "neither an ATB dump (msit_dump*/ait_dump* with model/ topology) nor a torch dump "
                      "(model_tree.json in the path, its parent or grandparent)");
  }
  s.kind = SideKind::kTorch;
  s.process_dir = torch->first.string();
  s.process_name = torch->first.filename().string();
  s.given_token = torch->second;
  std::string tree_path = (torch->first / "model_tree.json").string();
  MSIT_ASSIGN_OR_RETURN(std::string text, read_topology_file(tree_path));
  MSIT_ASSIGN_OR_RETURN(TopoTree t, parse_torch_model_tree(text, tree_path));
  s.trees.push_back(std::move(t));
  std::vector<std::string> dirs = s.given_token ? std::vector<std::string>{*s.given_token} : list_dirs(s.process_dir);
  sort_token_names(dirs);
  for (auto& d : dirs) s.tokens.push_back(TokenDir{d, (torch->first / d).string(), TreeFilter::kAll});
  return s;
}

std::vector<std::string> sibling_process_dirs(const DumpSide& s) {
  fs::path parent = fs::path(s.process_dir).parent_path();
  std::vector<std::string> out;
  for (auto& d : list_dirs(parent.string())) out.push_back((parent / d).string());
  return out;
}

}  // namespace msit::atb
