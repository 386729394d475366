// A token's files from its directories' listings: msit's GE op dict (duplicated op names
// resolved as msit does), FX nodes, and a token's least sort key and FX data known from a listing.
#include "common/compare/token_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

#include "common/compare/matching.h"
#include "common/store/store_catalog.h"

namespace msit {
namespace {

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

// Extensions msit's GE indexing skips in a token directory.
bool msit_skips_ge(std::string_view name) {
  const size_t dot = name.find_last_of('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : name.substr(dot);
  return ext == ".txt" || ext == ".npy" || ext == ".bin" || ext == ".csv";
}

// The raw file an entry stands for and how, as sources_in (dir_listing.h) reads it.
std::optional<std::pair<std::string, SourceKind>> source_of(const DirEntry& e) {
  if (!e.is_file) return std::nullopt;
  if (e.stored != nullptr) return std::make_pair(std::string(e.name()), SourceKind::kStored);
  return raw_name_of(e.name());
}

}  // namespace

void add_ge_files(TokenFiles& tok, std::vector<SourceFile> files, std::vector<std::string>& warnings) {
  std::unordered_map<std::string, size_t> where;  // op name -> position in ge_ops
  for (size_t i = 0; i < tok.ge_ops.size(); ++i) where.emplace(tok.ge_ops[i].first, i);
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.raw_path < b.raw_path; });
  for (auto& f : files) {
    const std::string_view name = f.raw_name();
    if (msit_skips_ge(name)) continue;
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
    if (!f.raw_name().ends_with(".npy")) continue;
    bool is_input = false;
    std::string key = msit_fx_node_key(f.raw_name(), &is_input);
    auto& node = tok.fx_nodes[std::move(key)];
    (is_input ? node.inputs : node.outputs).push_back(std::move(f));
  }
}

std::string least_ge_sort_key(const std::vector<DirEntry>& entries) {
  std::string least(kNoSortKey);
  for (const DirEntry& e : entries) {
    auto source = source_of(e);
    if (!source) continue;
    const std::string& raw = source->first;
    if (msit_skips_ge(raw) || std::count(raw.begin(), raw.end(), '.') < 4) continue;  // msit_ge_op_name: 5 parts
    // least_sort_key(): a _min_max file's cells show its own path, the others the raw path.
    const std::string_view name = source->second == SourceKind::kMinMax ? e.name() : std::string_view(raw);
    // Both names hold a '.', so the key of the whole path lies in the name.
    if (const std::string_view key = msit_sort_key(name); key < least) least = key;
  }
  return least;
}

bool has_fx_data(const std::vector<DirEntry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const DirEntry& e) {
    auto source = source_of(e);
    return source && source->first.ends_with(".npy");
  });
}

TokenFiles load_token_files(TreeKind kind, const TokenFiles& listed, std::vector<std::string>& warnings) {
  TokenFiles tok;
  std::vector<SourceFile> files;
  for (const std::string& dir : listed.dirs) {
    std::vector<SourceFile> in_dir = sources_in(dir, list_dir(dir));
    if (kind == TreeKind::kFx) add_fx_files(tok, std::move(in_dir));
    else files.insert(files.end(), std::make_move_iterator(in_dir.begin()), std::make_move_iterator(in_dir.end()));
  }
  if (kind == TreeKind::kGe) add_ge_files(tok, std::move(files), warnings);
  return tok;
}

}  // namespace msit
