// Stage: where an Error happened (the STAGE of "PATH: STAGE: MESSAGE"). Callers branch on it
// (retry later, bad content, conflict), so it is an enum; stage_name() is the one text table.
#pragma once

#include <cstdint>
#include <string_view>

namespace msit {

// clang-format off
enum class Stage : uint8_t {
  kNone,  // no stage: printed as nothing
  // Files and the filesystem.
  kOpen, kStat, kStatvfs, kRead, kWrite, kFsync, kFsyncDir, kRename, kUnlink, kLock, kList, kScan, kWalk,
  kConflict, kQuarantine, kInit, kWatch, kLinks,
  // Dump contents.
  kHeader, kPayload, kIncomplete, kLayout, kParse, kReduce, kStats, kStatsCsv, kMinMax, kGraphText,
  // Outputs: summaries, archives, the summary store.
  kSummary, kCoverage, kArchive, kRestore, kStore, kExport, kConfig,
  // Compare.
  kCompare, kIndex, kMatch, kMode, kRanks, kLoad, kConcat, kDetect, kTopology, kTokens, kMapping, kOpMapping,
  kMetadata, kWeight,
  // Appended (no value above moves): a file beside a summary store (-wal, -shm, -journal) of
  // another owner than the store's: the store is refused while it is there (docs/safety.md R2, R6).
  kStoreOwner,
};
// clang-format on

// The stage's text in messages, logs and reports ("open", "fsync-dir", "stats csv", ...).
std::string_view stage_name(Stage s);

}  // namespace msit
