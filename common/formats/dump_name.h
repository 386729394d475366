// Classifying file names found in dump trees: GE dumps, FX npy, graph text, summaries, ...
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/formats/tensor_desc.h"
#include "common/io/derived_names.h"

namespace msit {

enum class NameKind : uint8_t {
  kGeDump,      // {OpType}.{OpName}.{TaskId}.{StreamId}.{Timestamp} and variants
  kFxNpy,       // {node}-{target}.INPUT|OUTPUT.{i}[.{j}].{ts}.npy
  kOtherNpy,    // an .npy that is not named like an FX dump
  kGraphText,   // dynamo_*_graph_*.txt and other .txt
  kSummary,     // NAME.summary.json
  kMinMaxNpy,   // STEM_min_max.npy (old converter)
  kMinMaxNpz,   // NAME_min_max.npz (old converter)
  kArchive,     // NAME.zst (lossless archive)
  kTemp,        // our own temp files (.msit-tmp.*)
  kClaim,       // a raw file moved to its private name just before removal (.msit-claim.*)
  kLock,        // the tree's owner lock (.msit-compact.lock)
  kStore,       // the summary store of a dump root (msit-summary.db, its -wal, -shm, -journal)
  kStatsCsv,    // GE stats-mode csv
  kMappingCsv,  // mapping.csv of hashed long names
  kUnknown,
};
std::string_view name_kind_name(NameKind k);

struct GeDumpName {
  std::string op_type;
  std::string op_name;  // may contain dots; fused names are concatenations
  std::string task_id;
  std::string stream_id;  // empty for the old 4-field variant
  std::string timestamp;
  std::vector<std::string> extra;  // FFTS+ fields after the timestamp
  bool fused() const { return op_type == "AutomaticBufferFusionOp"; }
};

struct FxDumpName {
  std::string node_key;  // text before .INPUT. / .OUTPUT. (e.g. "mm-aten.mm.default")
  Role role = Role::kOutput;
  uint32_t index = 0;
  std::optional<uint32_t> sub_index;
  std::string timestamp;
};

struct NameInfo {
  NameKind kind = NameKind::kUnknown;
  std::optional<GeDumpName> ge;
  std::optional<FxDumpName> fx;
  std::string raw_name;  // for summaries/min_max/archives: the name of the raw file they replace
};

NameInfo classify_name(std::string_view file_name);
std::optional<GeDumpName> parse_ge_dump_name(std::string_view file_name);
std::optional<FxDumpName> parse_fx_dump_name(std::string_view file_name);
// NAME.csv with a GE dump name NAME (a statistics-mode dump): NAME, parsed.
std::optional<GeDumpName> parse_stats_csv_name(std::string_view file_name);
// adump "dump stream" names carry a dump number before the task id, which the 5-field rule
// reads as a last ".N" of the op name (as msit does). This gives the op name without it, or
// nullopt when the op name does not end in ".<digits>".
std::optional<std::string> strip_dump_number(std::string_view op_name);

}  // namespace msit
