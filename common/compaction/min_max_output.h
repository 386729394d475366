// `--summary-format msit`: the old Python converter's `_min_max` files, from a summary, and
// the sink that writes them beside the raw file.
#pragma once

#include <string>

#include "common/base/result.h"
#include "common/compaction/file_sink.h"
#include "common/formats/tensor_desc.h"
#include "common/summary/summary.h"

namespace msit {

// Bytes of `STEM_min_max.npy` (npy raw file) or `NAME_min_max.npz` (GE raw file).
Result<std::string> encode_min_max_summary(const FileSummary& s, const RawDumpFile& raw);

// `STEM_min_max.npy` / `NAME_min_max.npz`: only identical bytes count as this file's summary.
class MinMaxSink : public FileSink {
 public:
  explicit MinMaxSink(const FileRef& raw);

 protected:
  Result<std::string> encode_bytes(const FileSummary& s, const RawDumpFile& raw) const override {
    return encode_min_max_summary(s, raw);
  }
};

}  // namespace msit
