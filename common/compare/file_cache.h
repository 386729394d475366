// Loads each source file once (raw header, summary JSON or _min_max arrays) and shares it across
// the rows of its tensors; raw files are summarised on the fly at most once per sketch setting.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/base/result.h"
#include "common/compare/dump_index.h"
#include "common/compare/matching.h"
#include "common/formats/min_max.h"
#include "common/formats/tensor_desc.h"
#include "common/io/batch_read.h"
#include "common/layout/logical_stream.h"
#include "common/summary/summary.h"

namespace msit {

struct LoadedFile {
  const SourceFile* source = nullptr;  // owned by the dump index, which outlives the cache
  std::optional<Error> error;          // unreadable / corrupt: every row of it says so
  std::optional<RawDumpFile> raw;      // kRaw
  std::optional<FileSummary> summary;  // kSummary
  MinMaxRows mm_inputs, mm_outputs;    // kMinMax (FX npy: one row in mm_outputs)
  bool fx = false;                     // one-tensor npy file (FX)

  // Raw files summarised with compact's code, keyed by (sketch width, seed).
  std::mutex mu;
  std::map<std::pair<uint32_t, uint64_t>, std::shared_ptr<Result<FileSummary>>> on_the_fly;
};

class FileCache {
 public:
  // keep=false: load without caching (FX files feed exactly one row; caching them all would
  // hold every summary of a 100k-file tree in memory).
  std::shared_ptr<LoadedFile> get(const SourceFile& f, bool keep = true);
  // get(f, false) for many files at once: summaries are read in one batch (SmallFileBatch, at
  // most reader's max_files per call). out[i] is files[i]'s load.
  void load_uncached(const std::vector<const SourceFile*>& files, SmallFileBatch& reader,
                     std::vector<std::shared_ptr<LoadedFile>>& out);
  // get(f) for many files ahead of use (GE files, shared by the rows of their tensors):
  // summaries read in one batch (at most reader's max_files), stored ones one batch per store,
  // other kinds one by one.
  void preload(const std::vector<const SourceFile*>& files, SmallFileBatch& reader);
  // Drops what get()/preload() keep of these files: the streamed compare's GE files once their
  // token is evaluated (a LoadedFile still in use lives on in its shared_ptr).
  void forget(const std::vector<const SourceFile*>& files);
  Result<TensorCounts> counts(const SourceFile& f);
  // The summary of a raw file, computed once per (width, seed).
  std::shared_ptr<Result<FileSummary>> summarize(LoadedFile& lf, const StatsOptions& opts);

 private:
  // A file's load and the flag that runs it once, by the file's path. Hashed, one map: looked up
  // for every GE file of every row, an ordered map's compares of long paths sharing their
  // directories (and a second map for the flag) were ~5% of a summarised compare's CPU time.
  struct Slot {
    std::shared_ptr<LoadedFile> file;
    std::shared_ptr<std::once_flag> once;
  };

  std::mutex mu_;
  std::unordered_map<std::string, Slot> files_;
};

// Position of tensor (role, index) in a raw file / summary; FX files hold one tensor.
const TensorDesc* find_desc(const LoadedFile& lf, Role role, uint32_t index);
const TensorSummary* find_summary_tensor(const FileSummary& s, bool fx, Role role, uint32_t index);

}  // namespace msit
