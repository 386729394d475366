// Which sink a raw file's summary goes to (the one place that branches on the summary
// format), and the checks every sink shares.
#include "common/compaction/sink.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "common/compaction/archive_sink.h"
#include "common/compaction/compact.h"
#include "common/compaction/file_sink.h"
#include "common/compaction/min_max_output.h"
#include "common/compaction/store_sink.h"
#include "common/io/derived_names.h"

namespace msit {
namespace {

// The store's rows, or nullptr: per-file JSON summaries instead of store rows on a network
// filesystem (SQLite's locks), and for a raw file whose readers are not those of its dump
// root's store.
Result<std::unique_ptr<SummarySink>> store_sink_for(const FileRef& f, const CompactOptions& opts,
                                                    const OutputAccess& access) {
  if (opts.stores != nullptr && opts.stores->json_instead(f.path)) return std::unique_ptr<SummarySink>();
  if (opts.dry_run) return std::unique_ptr<SummarySink>(std::make_unique<StoreSink>(f.path, opts.store_sketch));
  MSIT_ASSIGN_OR_RETURN(std::unique_ptr<StoreSink> s, StoreSink::attach(f, opts, access));
  return std::unique_ptr<SummarySink>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<SummarySink>> make_summary_sink(const FileRef& f, const CompactOptions& opts,
                                                       const OutputAccess& access) {
  std::unique_ptr<SummarySink> sink;
  if (opts.format == SummaryFormat::kStore) { MSIT_ASSIGN_OR_RETURN(sink, store_sink_for(f, opts, access)); }
  if (!sink && opts.format == SummaryFormat::kMsit) sink = std::make_unique<MinMaxSink>(f);
  if (!sink) sink = std::make_unique<JsonSink>(f);
  if (opts.raw == RawAction::kArchive) sink = std::make_unique<ArchiveSink>(std::move(sink), f, opts.archive);
  return sink;
}

std::string summary_path_for(const std::string& raw_path, SummaryFormat format) {
  if (format == SummaryFormat::kRich) return summary_name_for(raw_path);
  if (format == SummaryFormat::kStore) return {};  // rows of a store, not a file: common/store/store_locator.h
  return min_max_name_for(raw_path);
}

bool writes_store_rows(const CompactOptions& opts) { return opts.format == SummaryFormat::kStore && !opts.dry_run; }

bool summary_file_present(const FileRef& f, SummaryFormat format) {
  if (format == SummaryFormat::kStore) return false;
  struct stat st {};
  return ::fstatat(f.dir.get(), summary_path_for(f.name, format).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool same_summarised_bytes(const FileSummary& e, const FileSummary& fresh) {
  if (e.source_name != fresh.source_name || e.source_size != fresh.source_size ||
      e.tensors.size() != fresh.tensors.size())
    return false;
  for (size_t i = 0; i < e.tensors.size(); ++i) {
    if (e.tensors[i].xxh3_64 != fresh.tensors[i].xxh3_64) return false;
  }
  return true;
}

Status check_unchanged_while_read(int fd, const FileIdentity& at_open, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(FileIdentity now, identity_of(fd, path));
  if (!now.same_content_as(at_open) || now.ctime_ns != at_open.ctime_ns) {
    return make_error(path, Stage::kIncomplete,
                      "file changed while it was being read (still being written?); left in place");
  }
  return ok_status();
}

}  // namespace msit
