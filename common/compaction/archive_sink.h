// `--archive`: wraps the sink of the summary and adds the raw file's verified lossless archive
// (NAME.zst, common/archive), made durable under a temp name while the file is prepared and
// published after the summary, so the raw file goes only when both are durable.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/archive/archive_writer.h"
#include "common/compaction/sink.h"
#include "common/safety/publish.h"

namespace msit {

class ArchiveSink : public SummarySink {
 public:
  ArchiveSink(std::unique_ptr<SummarySink> summary, const FileRef& raw, const archive::ArchiveOptions& opts);

  const std::string& path() const override { return summary_->path(); }
  uint64_t bytes() const override { return summary_->bytes() + bytes_; }
  std::string archive_path() const override { return path_; }
  bool up_to_date(const FileIdentity& id) const override { return summary_->up_to_date(id); }
  Status encode(const FileSummary& s, const RawDumpFile& raw) override { return summary_->encode(s, raw); }
  Status stage(FileSummary s, const OpenedRaw& raw) override;
  bool summary_new() const override { return summary_->summary_new(); }
  bool writes_in_dir() const override { return summary_->writes_in_dir() || temp_.has_value(); }
  // The archive temp is durable since stage(); only the summary has bytes to sync.
  Status sync() override { return summary_->sync(); }
  void join_commit(BatchCommit& commit, size_t index) override { summary_->join_commit(commit, index); }
  Status publish() override;
  void abandon() override;
  void release() override { summary_->release(); }

 private:
  Status publish_archive();

  std::unique_ptr<SummarySink> summary_;
  FileRef raw_;
  archive::ArchiveOptions opts_;
  std::optional<DirTemp> temp_;  // verified archive, durable under a temp name
  std::string path_;
  uint64_t bytes_ = 0;
};

}  // namespace msit
