// A row as the first-divergence rule (divergence.h) reads and writes it, without the report's
// cells: what a flow keeps that holds a token of millions of rows until the rule has run (the
// msProbe flow: ~200 bytes a row where a ReportRow takes ~1 KB with its strings). The fields
// have ReportRow's names and meanings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/report/report_row.h"

namespace msit {

struct JumpRow {
  // What the rule reads.
  OptDouble cosine, red, max_abs, mean_abs;
  std::optional<uint64_t> differing;
  uint64_t elements = 0;
  CellDType my_dtype, golden_dtype;
  MetricSource compare_mode = MetricSource::kNone;
  int64_t token_id = 0;
  // The tensor's op and op type (the flow keeps the texts alive while the rule runs), whether it
  // is an output (else an input), and the op's execution order.
  std::string_view op, op_type;
  bool output = true;
  uint64_t order = TensorLabel::kNoOrder;
  // What the rule writes.
  OptDouble error_level, error_jump, error_floor, noise_floor, margin, detection_floor;
  ReportRow::Jump jump = ReportRow::Jump::kNone;
  std::string note;
  // The flow's own: which pair of its rows this is.
  uint32_t my_index = 0, golden_index = 0;
};

}  // namespace msit
