// The stage texts: exactly what messages, logs and compact's grouping printed before Stage was an enum.
#include "common/base/stage.h"

namespace msit {

std::string_view stage_name(Stage s) {
  switch (s) {
    case Stage::kNone: return "";
    case Stage::kOpen: return "open";
    case Stage::kStat: return "stat";
    case Stage::kStatvfs: return "statvfs";
    case Stage::kRead: return "read";
    case Stage::kWrite: return "write";
    case Stage::kFsync: return "fsync";
    case Stage::kFsyncDir: return "fsync-dir";
    case Stage::kRename: return "rename";
    case Stage::kUnlink: return "unlink";
    case Stage::kLock: return "lock";
    case Stage::kList: return "list";
    case Stage::kScan: return "scan";
    case Stage::kWalk: return "walk";
    case Stage::kConflict: return "conflict";
    case Stage::kQuarantine: return "quarantine";
    case Stage::kInit: return "init";
    case Stage::kWatch: return "watch";
    case Stage::kLinks: return "links";
    case Stage::kHeader: return "header";
    case Stage::kPayload: return "payload";
    case Stage::kIncomplete: return "incomplete";
    case Stage::kLayout: return "layout";
    case Stage::kParse: return "parse";
    case Stage::kReduce: return "reduce";
    case Stage::kStats: return "stats";
    case Stage::kStatsCsv: return "stats csv";
    case Stage::kMinMax: return "min_max";
    case Stage::kGraphText: return "graph text";
    case Stage::kSummary: return "summary";
    case Stage::kCoverage: return "coverage";
    case Stage::kArchive: return "archive";
    case Stage::kRestore: return "restore";
    case Stage::kStore: return "store";
    case Stage::kStoreOwner: return "store-owner";
    case Stage::kExport: return "export";
    case Stage::kConfig: return "config";
    case Stage::kCompare: return "compare";
    case Stage::kIndex: return "index";
    case Stage::kMatch: return "match";
    case Stage::kMode: return "mode";
    case Stage::kRanks: return "ranks";
    case Stage::kLoad: return "load";
    case Stage::kConcat: return "concat";
    case Stage::kDetect: return "detect";
    case Stage::kTopology: return "topology";
    case Stage::kTokens: return "tokens";
    case Stage::kMapping: return "mapping";
    case Stage::kOpMapping: return "op mapping";
    case Stage::kMetadata: return "metadata";
    case Stage::kWeight: return "weight";
  }
  return "?";
}

}  // namespace msit
