// Shared by the legacy ait flows (layer/token compare, manual mapping): a file pair to evaluate.
#pragma once

#include <string>
#include <vector>

#include "common/compare/dump_index.h"
#include "common/compare/evaluate.h"

namespace msit::atb {

struct FilePair {
  SourceFile golden, my;
  std::string golden_cell, my_cell;
  int64_t token = 0;
  std::string token_text;  // a non-numeric token key, written instead of token
  uint64_t data_id = 0;    // ait writes 0 (layer/token) or the metadata.json id
  std::string golden_type, my_type;
  TensorLabel golden_label, my_label;  // torch module / ATB node, where the flow knows them
  RowProblem problem;                  // set: the row carries it (cmp_fail_reason), nothing is read
};

// One row per pair, in order, evaluated on `jobs` threads.
std::vector<ReportRow> evaluate_file_pairs(std::vector<FilePair>& pairs, unsigned jobs, const EvalOptions& eo);

}  // namespace msit::atb
