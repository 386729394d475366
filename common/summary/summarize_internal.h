// Shared between summarize.cpp and compact.cpp: an opened raw file and its reduction.
#pragma once

#include "common/base/unique_fd.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"
#include "common/safety/output_access.h"
#include "common/summary/summary.h"

namespace msit {

struct OpenedRaw {
  UniqueFd fd;
  FileIdentity identity;
  RawDumpFile header;
  OutputAccess access;  // owner, group and mode of what replaces it (common/safety/output_access.h)
};

// Opens without following links and parses the header (completeness checked there).
Result<OpenedRaw> open_raw(const std::string& path);
Result<FileSummary> summarize_open_file(int fd, const RawDumpFile& raw, const StatsOptions& opts);
// The same over any byte source (an archive is summarised as the file it holds).
Result<FileSummary> summarize_source(const SourcePtr& src, const RawDumpFile& raw, const StatsOptions& opts);

}  // namespace msit
