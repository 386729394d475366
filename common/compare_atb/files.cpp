// Node -> files (3.5.1), fix-ups (3.5.2-3.5.3), file pairing (3.5.4) and rank siblings (3.7).
#include "common/compare_atb/files.h"
#include "common/io/derived_names.h"
#include "common/store/store_catalog.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace msit::atb {
namespace {

// Hand-written matchers (std::regex trips GCC 12's -Wmaybe-uninitialized under the sanitizers
// and is slow): the names are fixed shapes.
size_t digits_before(std::string_view s, size_t end) {
  size_t b = end;
  while (b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9') --b;
  return end - b;
}

// `...output_{i}_{j}.pth`: a nested output (a tuple element of a tuple output).
bool is_nested_output(std::string_view n) {
  if (!n.ends_with(".pth")) return false;
  size_t end = n.size() - 4;
  size_t d = digits_before(n, end);
  if (d == 0 || end - d == 0 || n[end - d - 1] != '_') return false;
  end -= d + 1;
  d = digits_before(n, end);
  if (d == 0) return false;
  return n.substr(0, end - d).ends_with("output_");
}

// 'q', 'k' or 'v' for `root.model.layers.{i}.self_attn.{q|k|v}_proj/output.pth` in a path, else 0.
char qkv_projection_of(std::string_view path) {
  constexpr std::string_view kLayers = "root.model.layers.", kAttn = ".self_attn.", kTail = "_proj/output.pth";
  for (size_t pos = path.find(kLayers); pos != std::string_view::npos; pos = path.find(kLayers, pos + 1)) {
    size_t i = pos + kLayers.size();
    size_t start = i;
    while (i < path.size() && path[i] >= '0' && path[i] <= '9') ++i;
    if (i == start || path.substr(i, kAttn.size()) != kAttn) continue;
    i += kAttn.size();
    if (i >= path.size() || (path[i] != 'q' && path[i] != 'k' && path[i] != 'v')) continue;
    if (path.substr(i + 1, kTail.size()) == kTail) return path[i];
  }
  return 0;
}

namespace fs = std::filesystem;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool has(std::string_view s, std::string_view n) { return s.find(n) != std::string_view::npos; }

// A raw file that only its directory's summary store still knows.
SourceFile stored_source(const std::string& dir, const store::StoredName& n, const std::string* db) {
  SourceFile f;
  f.raw_path = (fs::path(dir) / n.name).string();
  f.kind = SourceKind::kStored;
  f.store_db = n.db != nullptr ? n.db : db;  // several stores may cover one directory
  f.store_id = n.id;
  return f;
}

}  // namespace

std::vector<SourceFile> dir_files(const std::string& dir, std::vector<std::string>* subdirs) {
  std::vector<SourceFile> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    auto st = it->symlink_status(e2);
    if (subdirs && fs::is_directory(st)) subdirs->push_back(it->path().string());
    if (!fs::is_regular_file(st) && !fs::is_symlink(st)) continue;  // -symlink dumps link identical tensors
    std::string name = it->path().filename().string();
    auto raw = raw_name_of(name);
    if (!raw) continue;
    SourceFile f;
    f.disk_path = (fs::path(dir) / name).string();
    f.raw_path = (fs::path(dir) / raw->first).string();
    f.kind = raw->second;
    out.push_back(std::move(f));
  }
  const std::string* db = nullptr;
  if (const store::StoredList stored = store::StoreCatalog::instance().stored_in(dir, &db)) {
    for (const auto& n : *stored) out.push_back(stored_source(dir, n, db));
  }
  std::sort(out.begin(), out.end(), [](const SourceFile& a, const SourceFile& b) {
    return a.raw_name() != b.raw_name() ? a.raw_name() < b.raw_name()
                                        : static_cast<int>(a.kind) < static_cast<int>(b.kind);
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const SourceFile& a, const SourceFile& b) { return a.raw_name() == b.raw_name(); }),
            out.end());
  return out;
}

namespace {

template <class Pred>
void take(const std::string& dir, Pred pred, std::vector<SourceFile>& out) {
  for (auto& f : dir_files(dir))
    if (pred(f.raw_name())) out.push_back(std::move(f));
}

}  // namespace

std::vector<SourceFile> endpoint_files(const DumpSide& side, const TopoTree& tree, const std::string& token_dir,
                                       const Endpoint& e, bool golden, const std::string& rel_override, bool ir_names) {
  const std::string& rel = rel_override.empty() ? tree.nodes[e.node].tensor_path : rel_override;
  fs::path dir = rel.empty() ? fs::path(token_dir) : fs::path(token_dir) / rel;
  std::vector<SourceFile> out;
  if (side.kind == SideKind::kTorch) {
    switch (e.loc) {
      case Loc::kAllOutput:
        take(
            dir.string(),
            [&](std::string_view n) { return starts_with(n, "output") && !(golden && is_nested_output(n)); }, out);
        break;
      case Loc::kAllInput:
        take(
            dir.string(), [](std::string_view n) { return starts_with(n, "input"); }, out);
        break;
      case Loc::kFile:
        take(
            dir.string(), [&](std::string_view n) { return n == e.file; }, out);
        break;
    }
    return out;
  }
  std::string after = (dir / "after").string(), before = (dir / "before").string();
  switch (e.loc) {
    case Loc::kAllOutput:
      take(
          after, [](std::string_view n) { return starts_with(n, "outtensor"); }, out);
      break;
    case Loc::kAllInput:
      take(
          after, [](std::string_view n) { return starts_with(n, "intensor"); }, out);
      take(
          before, [](std::string_view n) { return starts_with(n, "intensor"); }, out);
      break;
    case Loc::kFile: {
      // ATB >= 8f5d4e8c names files of ops with an IR intensor{k}_{irName}.bin: outtensor0.bin
      // then stands for outtensor0_{irName}.bin (msit's exact lookup misses it).
      std::string stem = e.file.size() > 4 ? e.file.substr(0, e.file.size() - 4) + "_" : e.file;
      take(
          after,
          [&](std::string_view n) {
            return n == e.file ||
                   (ir_names && starts_with(n, stem) && n.size() > 4 && n.substr(n.size() - 4) == ".bin");
          },
          out);
      break;
    }
  }
  return out;
}

void apply_qwen_fixup(const std::vector<SourceFile>& golden, std::vector<SourceFile>& mine) {
  for (const auto& g : golden) {
    const char which = qkv_projection_of(g.raw_path);
    if (which == 0) continue;
    std::string k = which == 'q' ? "0" : which == 'k' ? "1" : "2";
    std::vector<std::string> wanted = {"0_Attention/0_QKVLinearSplitPack/after/outtensor" + k + ".bin"};
    if (which == 'q') wanted.push_back("0_Attention/1_RotaryPositionEmbedding/before/intensor0.bin");
    wanted.push_back("0_QKVLinearSplitPack/1_SplitOperation/after/outtensor" + k + ".bin");
    std::vector<SourceFile> kept;
    for (const auto& f : mine) {
      if (std::any_of(wanted.begin(), wanted.end(), [&](const std::string& w) { return has(f.raw_path, w); }))
        kept.push_back(f);
    }
    if (!kept.empty()) mine = std::move(kept);
    break;
  }
}

std::vector<std::pair<size_t, size_t>> pair_files(const std::vector<SourceFile>& golden,
                                                  const std::vector<SourceFile>& mine) {
  std::vector<std::pair<size_t, size_t>> out;
  if (golden.size() == mine.size()) {
    std::vector<size_t> gi(golden.size()), mi(mine.size());
    for (size_t i = 0; i < gi.size(); ++i) gi[i] = mi[i] = i;
    std::stable_sort(gi.begin(), gi.end(), [&](size_t a, size_t b) { return golden[a].raw_path < golden[b].raw_path; });
    std::stable_sort(mi.begin(), mi.end(), [&](size_t a, size_t b) { return mine[a].raw_path < mine[b].raw_path; });
    for (size_t i = 0; i < gi.size(); ++i) out.emplace_back(gi[i], mi[i]);
    return out;
  }
  for (size_t g = 0; g < golden.size(); ++g)
    for (size_t m = 0; m < mine.size(); ++m) out.emplace_back(g, m);
  return out;
}

std::optional<SourceFile> find_source(const std::string& raw) {
  SourceFile s;
  s.raw_path = raw;
  std::error_code ec;
  if (fs::is_regular_file(raw, ec)) s.disk_path = raw, s.kind = SourceKind::kRaw;
  else if (fs::is_regular_file(archive_name_for(raw), ec))
    s.disk_path = archive_name_for(raw), s.kind = SourceKind::kRaw;
  else if (fs::is_regular_file(summary_name_for(raw), ec))
    s.disk_path = summary_name_for(raw), s.kind = SourceKind::kSummary;
  else if (const auto stored = store::StoreCatalog::instance().find(raw)) {
    const fs::path p(raw);
    store::StoredName n;
    const std::string name = p.filename().string();
    n.name = name;
    n.id = stored->id;
    n.db = stored->db;
    return stored_source(p.parent_path().string(), n, stored->db);
  } else {
    return std::nullopt;
  }
  return s;
}

std::vector<SourceFile> rank_files(const DumpSide& side, const std::vector<std::string>& siblings,
                                   const SourceFile& f) {
  const std::string& self = side.process_name;
  if (self.empty()) return {f};
  std::vector<SourceFile> out;  // in sibling (name) order, the selected rank at its place
  for (const auto& sib_dir : siblings) {
    std::string sib = fs::path(sib_dir).filename().string();
    if (sib == self) {
      out.push_back(f);
      continue;
    }
    std::string raw = f.raw_path;
    for (size_t pos = raw.find(self); pos != std::string::npos; pos = raw.find(self, pos + sib.size())) {
      raw.replace(pos, self.size(), sib);
    }
    if (auto s = find_source(raw)) out.push_back(std::move(*s));
  }
  if (out.empty()) out.push_back(f);
  return out;
}

std::string robust_rel(const TopoTree& tree, uint32_t node, const std::string& token_dir) {
  const std::string& rel = tree.nodes[node].tensor_path;
  uint32_t top = node;
  while (tree.nodes[top].parent > 0) top = static_cast<uint32_t>(tree.nodes[top].parent);
  if (top == 0) return rel;
  const std::string& type = tree.nodes[top].type;
  size_t k = 0;  // occurrence of this type among the level-1 nodes
  for (uint32_t c : tree.nodes[0].children) {
    if (c == top) break;
    k += tree.nodes[c].type == type;
  }
  std::vector<std::pair<int64_t, std::string>> dirs;
  for (auto& d : list_dirs(token_dir)) {
    auto us = d.find('_');
    if (us == std::string::npos || d.substr(us + 1) != type || us == 0 || us > 15) continue;
    if (!std::all_of(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(us),
                     [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    dirs.emplace_back(std::stoll(d.substr(0, us)), d);
  }
  std::sort(dirs.begin(), dirs.end());
  if (k >= dirs.size()) return rel;
  auto slash = rel.find('/');
  return dirs[k].second + (slash == std::string::npos ? "" : rel.substr(slash));
}

}  // namespace msit::atb
