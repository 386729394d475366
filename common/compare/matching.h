// Matching: which golden tensor is compared with which of mine, and the msit path cells of each
// row (docs/formats/graph-text.md §4 GE vs FX, §5 GE fused vs unfused, §6 row order; FX vs FX by name).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/compare/dump_index.h"
#include "common/formats/graph_text.h"
#include "common/formats/tensor_desc.h"
#include "common/report/row_cells.h"
#include "common/report/tensor_label.h"

namespace msit {

struct TensorCounts {
  uint32_t inputs = 0, outputs = 0;
};
// Tensor counts of a GE file (raw header, summary or _min_max.npz); errors become rows.
using CountsFn = std::function<Result<TensorCounts>(const SourceFile&)>;

enum class SlotKind : uint8_t {
  kNone,    // no data (problem rows)
  kTensor,  // tensor (role, index) of a GE file
  kFxFile,  // a whole FX npy (or its summary / _min_max)
  kEmpty,   // msit's empty float32 stand-in for a fused component missing from the golden dump
};

struct TensorSlot {
  SlotKind kind = SlotKind::kNone;
  const SourceFile* file = nullptr;
  Role role = Role::kOutput;
  uint32_t index = 0;
};

struct PairSpec {
  size_t group = 0;
  int64_t token = 0;
  std::optional<uint64_t> data_id;   // msit's row counter; empty for our extra diagnostic rows
  std::string golden_cell, my_cell;  // golden_data_path / my_data_path cells
  TensorSlot golden, my;
  TensorLabel golden_label, my_label;  // which tensor of which op each side is
  RowProblem problem;                  // set: the row carries it (cmp_fail_reason), nothing is read
  bool msit_row = true;                // msit writes this row (false: diagnostics msit omits)
};

struct MatchResult {
  std::vector<PairSpec> pairs;
  std::vector<std::string> warnings;
  uint64_t ops_without_rows = 0;  // GE ops present in the graph but with no FX counterpart
};

// Shared row counter: msit numbers rows process-wide, before sorting and filtering, including
// rows it later discards (the single-op reassignment quirk).
struct MatchContext {
  const GraphDef* graph = nullptr;  // may be an empty graph (GE vs GE without graph text)
  std::string graph_path;
  size_t group = 0;
  CountsFn counts;
  uint64_t next_data_id = 0;
};

void match_ge_fx(MatchContext& ctx, const DumpGroup& my, const DumpGroup& golden, MatchResult& out);
void match_ge_ge(MatchContext& ctx, const DumpGroup& my_fused, const DumpGroup& golden, MatchResult& out);
void match_fx_fx(MatchContext& ctx, const DumpGroup& my, const DumpGroup& golden, MatchResult& out);
// One token of each (both trees have it): the streamed compare (compare_stream.cpp) matches a
// rank token by token, in the order the whole-group functions above take them.
void match_ge_fx_token(MatchContext& ctx, int64_t token, const TokenFiles& my, const TokenFiles& golden,
                       MatchResult& out);
void match_ge_ge_token(MatchContext& ctx, int64_t token, const TokenFiles& my_fused, const TokenFiles& golden,
                       MatchResult& out);
void match_fx_fx_token(MatchContext& ctx, int64_t token, const TokenFiles& my, const TokenFiles& golden,
                       MatchResult& out);
// The warning for a token of mine that the golden group lacks (its rows are not made).
std::string token_missing_warning(int64_t token, const DumpGroup& my);

// msit's find_longest_name / get_all_ops_from_fusion_op: split a fused op name into graph ops.
// `is_dump_op` says whether a name is a dump-file op name (msit aborts on such a prefix).
std::vector<std::string> split_fused_name(std::string name, const GraphDef& graph,
                                          const std::function<bool(const std::string&)>& is_dump_op);

// 3.6: stable sort of one graph's rows by the text after the last '.' of my_data_path.
void sort_rows_msit(std::vector<PairSpec>& rows, size_t begin, size_t end);
// That sort's key of a my_data_path cell.
std::string_view msit_sort_key(std::string_view my_cell);
// The least key a row of this file of mine can have: every my cell of a GE flow is the file's
// cell, or it followed by ",inputs,k" / ",outputs,k", whose keys are not less.
std::string_view least_sort_key(const SourceFile& my_file);

// Execution order of rows [begin, end) of one graph: their position (msit sorts GE rows by the
// dump timestamp, FX nodes are matched in timestamp order), on both labels.
void number_rows(std::vector<PairSpec>& rows, size_t begin, size_t end);

}  // namespace msit
