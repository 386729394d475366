// A summary written as its own file beside the raw file (JSON, or msit's `_min_max` in
// min_max_output.h): a private temp in the raw file's directory, fsynced with the batch,
// renamed without replacing anything.
#pragma once

#include <optional>
#include <string>

#include "common/compaction/sink.h"
#include "common/safety/publish.h"

namespace msit {

class FileSink : public SummarySink {
 public:
  // `summary_name` is in the raw file's directory (raw.dir); `summary_path` names it in messages.
  FileSink(const FileRef& raw, std::string summary_name, std::string summary_path);

  const std::string& path() const override { return path_; }
  uint64_t bytes() const override { return size_; }
  bool up_to_date(const FileIdentity& /*id*/) const override { return false; }
  Status encode(const FileSummary& s, const RawDumpFile& raw) override;
  Status stage(FileSummary s, const OpenedRaw& raw) override;
  bool summary_new() const override { return temp_.has_value(); }
  bool writes_in_dir() const override { return temp_.has_value(); }
  Status sync() override;
  Status publish() override;
  void abandon() override { temp_.reset(); }

 protected:
  virtual Result<std::string> encode_bytes(const FileSummary& s, const RawDumpFile& raw) const = 0;
  // A file under the summary's name whose bytes differ yet describe the same raw bytes.
  virtual bool existing_matches(const std::string& /*text*/, const FileSummary& /*fresh*/) const { return false; }
  // The file under the summary's name, read through the directory fd (nullopt: none).
  Result<std::optional<std::string>> read_existing() const;

 private:
  Result<bool> needs_new_summary(const FileSummary& s) const;

  FileRef raw_;
  std::string name_;
  std::string path_;
  std::string encoded_;  // from encode() to stage()
  uint64_t size_ = 0;
  std::optional<DirTemp> temp_;  // absent when an existing summary was verified
  OutputAccess access_;          // given to the temp just before it is synced (the raw file's)
};

// NAME.summary.json (docs/formats/summary.md).
class JsonSink : public FileSink {
 public:
  explicit JsonSink(const FileRef& raw);
  bool up_to_date(const FileIdentity& id) const override;

 protected:
  Result<std::string> encode_bytes(const FileSummary& s, const RawDumpFile& raw) const override;
  bool existing_matches(const std::string& text, const FileSummary& fresh) const override;
};

}  // namespace msit
