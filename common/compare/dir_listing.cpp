// Compare's listing of a dump directory: disk entries merged with the stored names of the
// stores covering it, msit's sorted walk, and one source per raw file.
#include "common/compare/dir_listing.h"

#include <algorithm>
#include <cerrno>
#include <deque>

#include "common/io/tree_walk.h"

namespace msit {
namespace {

// The raw files of `dir` that only its summary store still knows, as file entries. The
// store's path strings live as long as the process-wide catalog; the names as long as the
// listing's StoredList.
void add_stored_entries(const std::string& dir, const FileFilter& keep_file, DirListing& out) {
  const std::string* db_name = nullptr;
  out.stored = store::StoreCatalog::instance().stored_in(dir, &db_name);
  if (out.stored == nullptr) return;
  for (const auto& n : *out.stored) {
    if (keep_file && !keep_file(n.name)) continue;
    DirEntry e;
    e.is_file = true;
    e.stored = &n;
    e.store_db = n.db != nullptr ? n.db : db_name;  // several stores may cover one directory
    out.entries.push_back(std::move(e));
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

}  // namespace

std::string child_path(const std::string& dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out += dir;
  if (!dir.empty() && dir.back() != '/') out += '/';
  out += name;
  return out;
}

DirListing list_dir(const std::string& dir, const FileFilter& keep_file, Stored stored) {
  DirListing out;
  Status listed = list_dir_path(dir, [&](std::string_view n, EntryType type) {
    if (type == EntryType::kFile && keep_file && !keep_file(n)) return;
    DirEntry e;
    e.disk_name = n;
    e.is_dir = type == EntryType::kDirectory;
    e.is_file = type == EntryType::kFile;
    out.entries.push_back(std::move(e));
  });
  // A directory that is gone (a store copied without its dump's directories, or emptied and
  // removed after compaction) still holds what its store records there: listed on.
  if (!listed.ok() && listed.error().sys_errno != ENOENT) return out;
  auto by_name = [](const DirEntry& a, const DirEntry& b) { return a.name() < b.name(); };
  std::vector<DirEntry>& v = out.entries;
  std::sort(v.begin(), v.end(), by_name);
  add_stored_dirs(dir, v);  // sub-directories count for every walk, stored ones too
  if (stored == Stored::kWithout) return out;
  // The store's names come sorted (and a stored directory holds 100,000s of them): merged, not
  // sorted again. On a tie the file on disk comes first.
  const auto on_disk = static_cast<std::ptrdiff_t>(v.size());
  add_stored_entries(dir, keep_file, out);
  std::inplace_merge(v.begin(), v.begin() + on_disk, v.end(), by_name);
  return out;
}

void walk(const std::string& dir, int depth, const VisitDir& visit, bool* stop, const FileFilter& keep_file,
          const SkipDir& skip, Stored stored) {
  if (*stop || depth > 64) return;
  if (depth > 0 && skip && skip(dir)) return;
  DirListing listing = list_dir(dir, keep_file, stored);
  std::vector<std::string> subdirs;
  for (const auto& e : listing) {
    if (e.is_dir) subdirs.push_back(child_path(dir, e.name()));
  }
  if (!visit(dir, listing)) {
    *stop = true;
    return;
  }
  for (const auto& sub : subdirs) {
    walk(sub, depth + 1, visit, stop, keep_file, skip, stored);
    if (*stop) return;
  }
}

std::vector<SourceFile> sources_in(const std::string& dir, const DirListing& listing) {
  const std::vector<DirEntry>& entries = listing.entries;
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
    f.raw_path = child_path(dir, found[i].raw_name);
    f.kind = found[i].kind;
    if (const DirEntry* e = found[i].entry; e->stored != nullptr) {
      f.store_db = e->store_db;
      f.store_id = e->stored->id;
    } else if (e->name() != found[i].raw_name) {
      f.disk_path = child_path(dir, e->name());
    }
    out.push_back(std::move(f));
  }
  return out;  // sorted by raw_path
}

}  // namespace msit
