// The summary as rows of its dump root's store (common/store): nothing is written per file,
// a batch's rows are committed in one transaction per store (BatchCommit).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/compaction/sink.h"
#include "common/store/store_registry.h"
#include "common/store/summary_store.h"

namespace msit {

// The rows a batch adds, by store; commit() makes them durable, one transaction per store.
class BatchCommit {
 public:
  void add(store::SummaryStore* st, size_t index, store::StoreEntry row);
  // The entries of a failed commit, each with its error (their raw files stay).
  std::vector<std::pair<size_t, Error>> commit();

 private:
  std::map<store::SummaryStore*, std::vector<std::pair<size_t, store::StoreEntry>>> by_store_;
};

class StoreSink : public SummarySink {
 public:
  // A dry run: no store is opened, the size of the rows is only estimated.
  StoreSink(std::string raw_path, store::SketchPrecision sketch);
  // The store of the raw file's dump root; nullptr when its readers are not the raw file's
  // (docs/store.md, "Who can read a store": the caller writes a JSON summary instead).
  static Result<std::unique_ptr<StoreSink>> attach(const FileRef& raw, const CompactOptions& opts,
                                                   const OutputAccess& access);

  const std::string& path() const override { return path_; }
  uint64_t bytes() const override { return bytes_; }
  bool up_to_date(const FileIdentity& id) const override;
  Status encode(const FileSummary& s, const RawDumpFile& raw) override;
  Status stage(FileSummary s, const OpenedRaw& raw) override;
  bool summary_new() const override { return stored_.has_value(); }
  bool writes_in_dir() const override { return false; }
  Status sync() override { return ok_status(); }
  void join_commit(BatchCommit& commit, size_t index) override;
  Status publish() override { return ok_status(); }
  void abandon() override {}
  void release() override { store_.reset(); }

 private:
  Result<bool> needs_new_row(const FileSummary& fresh) const;

  std::string raw_path_;
  store::SketchPrecision sketch_;  // of the options it was made with
  std::shared_ptr<store::SummaryStore> store_;
  std::string rel_;
  std::string path_;  // the store's
  uint64_t bytes_ = 0;
  FileIdentity identity_;              // of the raw file as read
  std::optional<FileSummary> stored_;  // absent when the store already holds this summary
};

}  // namespace msit
