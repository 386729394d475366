// The report model: one row per compared tensor pair, msit's 24 columns then ours.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/report/opt_double.h"
#include "common/report/row_cells.h"
#include "common/report/tensor_label.h"
#include "common/report/verdict.h"

namespace msit {

struct ReportRow {
  // msit columns (docs/formats/report.md §2), in order.
  int64_t token_id = 0;
  std::string token_text;  // ATB/torch compare: a non-numeric token key ("warmup"), written instead
  std::optional<uint64_t> data_id;
  std::string golden_data_path, golden_op_type;
  CellDType golden_dtype;  // text only in the writers (common/report/row_cells.h)
  std::string golden_shape;
  OptDouble golden_max, golden_min, golden_mean;
  std::string my_data_path, my_op_type;
  CellDType my_dtype;
  std::string my_shape;
  OptDouble my_max, my_min, my_mean;
  OptDouble cosine, max_rel, mean_rel, max_abs, mean_abs, kl, red;
  // The cmp_fail_reason cell, typed (common/report/row_cells.h): msit's reasons (docs/formats/report.md
  // §5, what msit's filters look at), and why the row was not evaluated at all.
  FailReason fail_reason = FailReason::kNone;
  RowProblem problem;
  SideNames side_names = SideNames::kGoldenMy;  // MindIE's report says cpu_data / npu_data
  // Ours, written after msit's reasons in the same cmp_fail_reason cell: results that are not
  // what they seem (device layouts compared or summarised with their padding).
  std::string caveat;
  // Ours, appended after msit's columns.
  MetricSource compare_mode = MetricSource::kNone;  // text only in the writers (row_cells.h)
  std::array<OptDouble, 4> stat_abs;                // max, min, mean, l2norm
  std::array<OptDouble, 4> stat_rel;
  std::string nan_inf;
  Verdict verdict = Verdict::kNone;
  std::string note;  // about this row (e.g. why it is inconclusive)
  // About the whole compare, on a rank's first row only: what was paired, the ranks and tokens
  // not compared. Written before `note` in the note cell (note_cell), kept apart so that nothing
  // reads it as this row's own note (the terminal's inconclusive reasons).
  std::string compare_note;
  // Ours, last: the error-jump rule (common/compare/divergence.h), filled after evaluation.
  OptDouble error_level;  // max(RED, sqrt(2 (1 - cosine))); none for discrete rows
  OptDouble error_jump;   // output rows: error_level / the floor before it
  // The divergence cell: kFirst, the token's first divergence (margin at least kConfirmMargin);
  // kJump, a later one; kSuspect, a thin margin (over 1, under kConfirmMargin) before the first.
  enum class Jump : uint8_t { kNone, kJump, kFirst, kSuspect } jump = Jump::kNone;
  // Output rows the rule judged: error_level over the level it is named at (margin 1), and the
  // level at which this output would be a divergence (its detection floor).
  OptDouble margin, detection_floor;
  // Not written: what the first-divergence rule measured the jump against (output rows): the
  // floor sqrt(inputs^2 + noise^2) and the noise floor learned for the op type in this token.
  OptDouble error_floor, noise_floor;
  // Not written: of a discrete pair (both dtypes bool or integer), how many elements differ;
  // nullopt when not counted (compared from sketches) or not discrete.
  std::optional<uint64_t> differing;
  // Not written: how many elements the pair's metrics are over (0: not known); the error level
  // of a tensor of few elements is a noisy estimate (common/compare/divergence.h).
  uint64_t elements = 0;
  // Not written to CSV/JSON: opcheck's verdicts on the first divergence's op and the ops before
  // it (compare --recompute, common/compare/recompute.h), one line per op and side; shown by the
  // terminal summary and the HTML page.
  std::vector<std::string> recompute;
  // Which tensor of which op each side is (common/report/tensor_label.h), from the pair builder.
  TensorLabel my_label, golden_label;
  // How much of each path cell is the file (a GE cell goes on with ",outputs,0"): set by the
  // evaluator from the pair's own file, so that nothing cuts a path cell apart. kWholeCell: all.
  static constexpr uint32_t kWholeCell = ~uint32_t{0};
  uint32_t golden_file_len = kWholeCell, my_file_len = kWholeCell;
  // Not written: what msit's filters need and where the row sits.
  bool msit_row = true;  // msit would produce this row at all
  size_t group = 0;
  int64_t rank = -1;
};

// The divergence cell: empty, "jump" (the error jumped above its floor), "first" (the first
// jump of its token: the op named as the first divergence) or "suspect" (a thin margin).
std::string_view jump_cell(ReportRow::Jump j);

// msit's part of the cmp_fail_reason cell: its reasons, or why the row was not evaluated.
std::string msit_reason_cell(const ReportRow& r);
// The cmp_fail_reason cell: msit's part, then our caveat.
std::string fail_reason_cell(const ReportRow& r);
void add_caveat(ReportRow& r, const std::string& text);
// The note cell: the compare's note, then the row's own ("; " between them).
std::string note_cell(const ReportRow& r);

// msit's header (docs/formats/report.md §2) and the extra columns, in order: the names of
// kReportColumns (common/report/report_columns.h).
const std::vector<std::string_view>& msit_columns();
const std::vector<std::string_view>& extra_columns();

// msit's filters (docs/formats/report.md §6): drop rows whose reason is exactly "data shape doesn't match.",
// and int8-vs-non-int8 rows with msit's skip-the-next-row quirk. Also drops our extra rows.
std::vector<ReportRow> apply_msit_filters(const std::vector<ReportRow>& rows);
// The same filters one row at a time, in report order (a streamed rank): whether msit keeps
// this row; the quirk's state carries on to the next call.
class MsitFilter {
 public:
  bool keep(const ReportRow& r);

 private:
  bool skip_next_ = false;
};
// Why msit would drop this row (for the note column when rows are kept), or empty.
std::string msit_drop_reason(const ReportRow& r);

}  // namespace msit
