// Store entries out as JSON files or one CSV; stores found without following symlinks.
#include "common/store/store_export.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include "common/base/run_workers.h"
#include "common/formats/dump_name.h"
#include "common/io/tree_walk.h"
#include "common/report/csv.h"
#include "common/safety/output_access.h"
#include "common/safety/publish.h"
#include "common/store/store_codec.h"
#include "common/store/store_locator.h"
#include "common/store/summary_store.h"

namespace msit::store {
namespace {

// Deeper trees than this are not dump trees; the bound keeps a hostile tree from exhausting fds.
constexpr int kMaxDepth = 64;
// One entry that cannot be written (a name too long, a directory taken by a file) is reported
// and the export goes on; this many in one store mean the output itself is broken (disk full).
constexpr size_t kMaxWriteErrors = 100;

std::string join(const std::string& a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return a;
  return a + "/" + std::string(b);
}

void walk(int dir_fd, const std::string& path, int depth, std::vector<std::string>& out, std::vector<Error>* problems) {
  auto problem = [&](Error e) {
    if (problems != nullptr) problems->push_back(std::move(e));
  };
  std::vector<std::string> subdirs;
  Status listed = list_dir_fd(dir_fd, path, [&](std::string_view name, EntryType type) {
    if (type == EntryType::kDirectory) subdirs.emplace_back(name);
    else if (type == EntryType::kFile && name == kStoreFileName) out.push_back(join(path, name));
  });
  if (!listed.ok())
    return problem(make_sys_error(path, Stage::kWalk, "cannot list the directory", listed.error().sys_errno));
  if (depth >= kMaxDepth) {
    if (!subdirs.empty()) problem(make_error(path, Stage::kWalk, "more than 64 directory levels; not searched deeper"));
    return;
  }
  for (const auto& name : subdirs) {
    UniqueFd sub(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub.valid()) {
      if (errno != ENOENT && errno != ELOOP && errno != ENOTDIR)  // replaced meanwhile: not ours to follow
        problem(make_sys_error(join(path, name), Stage::kWalk, "cannot open the directory", errno));
      continue;
    }
    walk(sub.get(), join(path, name), depth + 1, out, problems);
  }
}

// Directories below the export's base, created on demand; the last one is kept (entries come
// in path order, so consecutive entries mostly share it).
class DirMaker {
 public:
  explicit DirMaker(const DirRef& base) : base_(base) {}
  Result<DirRef> dir(const std::string& rel) {
    if (last_.fd && rel == last_rel_) return last_;
    UniqueFd cur(::fcntl(base_.get(), F_DUPFD_CLOEXEC, 0));
    if (!cur.valid()) return make_sys_error(base_.path, Stage::kExport, "cannot duplicate the directory fd", errno);
    std::string shown = base_.path;
    std::string_view rest = rel;
    while (!rest.empty()) {
      const size_t slash = rest.find('/');
      const std::string comp(rest.substr(0, slash));
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
      shown += "/" + comp;
      if (::mkdirat(cur.get(), comp.c_str(), 0755) != 0 && errno != EEXIST)
        return make_sys_error(shown, Stage::kExport, "cannot create the directory", errno);
      MSIT_ASSIGN_OR_RETURN(UniqueFd next, open_dir_beneath(cur.get(), comp, shown));
      cur = std::move(next);
    }
    last_ = DirRef{std::make_shared<const UniqueFd>(std::move(cur)), shown};
    last_rel_ = rel;
    return last_;
  }

 private:
  DirRef base_;
  DirRef last_;
  std::string last_rel_;
};

struct PendingFile {
  DirRef dir;
  std::string name;
  std::string json;
  OutputAccess access;  // the store's: its rows' readers (docs/store.md, "Who can read a store")
};
enum class Written : uint8_t { kWritten, kConflict };

// One JSON file: temp, fsync, publish without replacing; a name already taken is a conflict.
Result<Written> write_one(const PendingFile& f) {
  struct stat st {};
  if (::fstatat(f.dir.get(), f.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return Written::kConflict;
  MSIT_ASSIGN_OR_RETURN(DirTemp temp, DirTemp::create(f.dir, f.name, 0600));
  MSIT_TRY(apply_output_access(temp.fd(), f.access, temp.final_path()));
  MSIT_TRY(temp.write(f.json));
  MSIT_TRY(temp.sync_and_close());
  Status published = temp.publish();
  if (!published.ok() && published.error().stage == Stage::kConflict) return Written::kConflict;  // taken meanwhile
  MSIT_TRY(published);
  return Written::kWritten;
}

// One fsync per small file dominates the export; on several threads the fsyncs overlap (the
// filesystem's journal commits them together). 5,080 entries on ext4 (2 cores, shared):
// 8.9-10.5 s on one thread, 2.8-3.8 s on four.
constexpr unsigned kWriters = 4;
constexpr size_t kBatch = 64;

void write_batch(std::vector<PendingFile>& batch, JsonExportResult& result) {
  std::vector<std::optional<Result<Written>>> done(batch.size());
  run_indexed(kWriters, batch.size(), [&](size_t i) { done[i] = write_one(batch[i]); });
  for (size_t i = 0; i < batch.size(); ++i) {  // in entry order, whatever thread wrote it
    const Result<Written>& r = *done[i];
    if (!r.ok()) result.errors.push_back(r.error());
    else if (*r == Written::kConflict) result.conflicts.push_back(batch[i].dir.path + "/" + batch[i].name);
    else ++result.written;
  }
  batch.clear();
}

std::string text_cell(std::string_view v) { return csv_quote(guard_text_cell(v)); }

std::string extreme_cell(const ConstExtremeRef& e) {
  if (e.i64) return std::to_string(*e.i64);
  if (e.u64) return std::to_string(*e.u64);
  return float_cell(e.real);
}

// Non-finite statistics are empty cells, as they are null in the JSON form.
std::string finite_cell(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? python_float_repr(*v) : std::string();
}

// The CSV cell of row I of kTensorFields (tensor_fields.h).
template <size_t I, class V>
std::string csv_cell(const V& v) {
  constexpr FieldKind kind = kTensorFields[I].kind;
  if constexpr (kind == FieldKind::kText || kind == FieldKind::kOptText) return text_cell(v);
  else if constexpr (kind == FieldKind::kU32 || kind == FieldKind::kU64) return std::to_string(v);
  else if constexpr (kind == FieldKind::kOptU32) return v ? std::to_string(*v) : std::string();
  else if constexpr (kind == FieldKind::kDims) return csv_quote(dims_text(v));
  else if constexpr (kind == FieldKind::kExtreme) return extreme_cell(v);
  else if constexpr (kind == FieldKind::kOptReal) return finite_cell(v);
  else if constexpr (kind == FieldKind::kReal) return finite_cell(std::optional<double>(v));
  else static_assert(I != I, "a field kind export's CSV cannot show");
}

bool csv_shows(CsvGate gate, const TensorSummary& t) {
  switch (gate) {
    case CsvGate::kAlways: return true;
    case CsvGate::kIfStats: return t.stats_available;
    case CsvGate::kIfL2norm: return t.stats_available && t.l2norm_available;
  }
  return true;
}

std::string make_csv_header() {
  std::string out = "store,path";
  for (const FileField& f : kFileFields) {
    if (!f.csv_column.empty()) out.append(",").append(f.csv_column);
  }
  for (const TensorField& f : kTensorFields) {
    if (!f.csv_column.empty()) out.append(",").append(f.csv_column);
  }
  return out + "\n";
}

}  // namespace

bool is_safe_rel(std::string_view rel) {
  if (rel.empty() || rel.front() == '/' || rel.find('\0') != std::string_view::npos) return false;
  while (true) {
    const size_t slash = rel.find('/');
    const std::string_view comp = rel.substr(0, slash);
    if (comp.empty() || comp == "." || comp == "..") return false;
    if (slash == std::string_view::npos) return true;
    rel.remove_prefix(slash + 1);
  }
}

std::vector<std::string> find_stores(const std::string& root, std::vector<Error>* problems) {
  std::vector<std::string> out;
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) {
    if (problems != nullptr) problems->push_back(make_sys_error(root, Stage::kWalk, "cannot look at it", errno));
    return out;
  }
  if (S_ISREG(st.st_mode)) return {root};  // a store file given by name (validated when opened)
  auto fd = open_trusted_dir(root);
  if (!fd.ok()) {
    if (problems != nullptr) problems->push_back(fd.error());
    return out;
  }
  std::string base = root;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  walk(fd->get(), base, 0, out, problems);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<StoreAbove> stores_above(const std::string& root) {
  std::error_code ec;
  std::string dir = std::filesystem::absolute(root, ec).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::vector<StoreAbove> out;
  if (ec) return out;
  const std::vector<std::string> dirs = reader_store_dirs(dir);
  for (size_t i = 1; i < dirs.size(); ++i) {
    const std::string db = join_dir(dirs[i], kStoreFileName);
    struct stat st {};
    if (::lstat(db.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back({db, dir.substr(dirs[i] == "/" ? 1 : dirs[i].size() + 1)});
  }
  return out;
}

Status export_store_json(const std::string& db_path, const DirRef& base, const std::string& sub,
                         JsonExportResult& result, const std::string& under) {
  MSIT_ASSIGN_OR_RETURN(auto store, SummaryStore::open_read_only(db_path));
  // Each exported summary is readable by whoever can read the store, and by nobody else.
  struct stat db_st {};
  if (::lstat(db_path.c_str(), &db_st) != 0)
    return make_sys_error(db_path, Stage::kExport, "cannot look at the store", errno);
  const OutputAccess access = output_access_for(db_st);
  DirMaker dirs(base);
  std::vector<PendingFile> batch;
  auto too_many = [&]() -> Status {
    if (result.errors.size() < kMaxWriteErrors) return ok_status();
    return make_error(base.path, Stage::kExport,
                      "stopped after " + std::to_string(result.errors.size()) + " files that could not be written");
  };
  Status st = store->for_each(
      [&](std::string_view full_rel, const FileSummary& s) -> Status {
        const std::string_view rel = under.empty() ? full_rel : full_rel.substr(under.size() + 1);
        if (!is_safe_rel(rel)) {
          result.errors.push_back(make_error(db_path, Stage::kExport,
                                             "stored path \"" + std::string(rel.substr(0, 200)) +
                                                 "\" is not a relative path below the store; skipped"));
          return ok_status();
        }
        const size_t slash = rel.rfind('/');
        const std::string parent = slash == std::string_view::npos ? sub : join(sub, rel.substr(0, slash));
        const std::string name =
            std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1)) + std::string(kSummarySuffix);
        auto dir = dirs.dir(parent);
        if (!dir.ok()) {
          result.errors.push_back(dir.take_error());
          return too_many();
        }
        batch.push_back(PendingFile{*dir, name, summary_to_json(s), access});
        if (batch.size() < kBatch) return ok_status();
        write_batch(batch, result);
        return too_many();
      },
      under);
  write_batch(batch, result);  // the rest, also after a store error: those entries were read
  MSIT_TRY(st);
  return too_many();
}

std::string_view csv_header() {
  static const std::string header = make_csv_header();
  return header;
}

std::string csv_rows(std::string_view store, std::string_view rel, const FileSummary& f) {
  std::string out;
  std::string prefix = text_cell(store) + "," + text_cell(rel);
  for_each_file_field(f, [&](auto row, const auto& v) {
    constexpr FileField d = kFileFields[row];
    if constexpr (!d.csv_column.empty()) {
      prefix += ',';
      if constexpr (d.kind == FileFieldKind::kOpText || d.kind == FileFieldKind::kOpOptText)
        prefix += text_cell(f.op ? (*f.op).*v : std::string());
      else if constexpr (d.kind == FileFieldKind::kText) prefix += text_cell(v);
      else static_assert(row() != row(), "a file field kind export's CSV cannot show");
    }
  });
  for (const auto& t : f.tensors) {
    out += prefix;
    for_each_tensor_field(t, [&](auto row, const auto& v) {
      constexpr TensorField d = kTensorFields[row];
      if constexpr (!d.csv_column.empty()) {
        out += ',';
        if (csv_shows(d.csv_gate, t)) out += csv_cell<row()>(v);
      }
    });
    out += '\n';
  }
  return out;
}

Status export_store_csv(const std::string& db_path, const std::string& store_label,
                        const std::function<Status(std::string_view)>& sink, size_t* rows, const std::string& under) {
  MSIT_ASSIGN_OR_RETURN(auto store, SummaryStore::open_read_only(db_path));
  return store->for_each(
      [&](std::string_view rel, const FileSummary& s) -> Status {
        if (rows != nullptr) *rows += s.tensors.size();
        return sink(csv_rows(store_label, rel, s));
      },
      under);
}

}  // namespace msit::store
