// Rope fix-up of the ATB/torch compare (docs/formats/atb-torch.md §3.5 item 3, msit cmp_mgr.py): my RopeOperation's
// cos/sin inputs against the golden rotary embedding, sliced at row seqLen-1 (seqLen = intensor4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/compare/evaluate.h"
#include "common/compare_atb/concat.h"

namespace msit::atb {

// When one of my files is under a `ropeoperation` dir and there are exactly five: returns the
// seqLen file (intensor4) and keeps intensor2 (cos) then intensor3 (sin) in `mine` (unchanged
// when those two are not both there). Otherwise nullopt and `mine` untouched.
std::optional<SourceFile> select_rope_files(std::vector<SourceFile>& mine);

struct RopeFix {
  int rope_type = -1;              // 0: my file is intensor2 (cos), 1: intensor3 (sin), -1: neither
  std::optional<int64_t> seq_len;  // from intensor4; empty: golden not sliced (note says why)
  std::string seq_note;
  bool msit_bounds = false;  // msit's strict `seqLen < dim` (seqLen == dim is not sliced)
};

// seqLen as msit reads it: the one value of intensor4 (raw, or a summary keeping its value).
RopeFix read_rope_fix(const std::optional<SourceFile>& seq_file, bool msit_bounds);
// msit applies the data fix-ups to every pair whose golden path contains "rotary"; we look only
// below the golden process dir (a dump stored under /data/rotary_tests/ is not a rotary module).
bool rope_data_fix_applies(const SourceFile& golden, const std::string& process_dir);
int rope_type_of(const SourceFile& mine);

// The golden tensor sliced as msit does (4-D: row seqLen-1 of dim 2, else of dim 1, then
// squeeze(0); 3-D: [seqLen-1, :, rope_type] as one row). Unchanged, with a note, when out of bounds.
FloatTensor slice_rotary(const FloatTensor& t, const RopeFix& fix, std::string& note);
// My [1, 2n] tensor whose odd columns repeat the even ones -> [1, n]; else unchanged.
FloatTensor halve_repeated_columns(const FloatTensor& t, std::string& note);

// The row of one pair under the data fix-ups: exact on the fixed tensors when both sides load
// whole; when a side is a summary that cannot be sliced or halved, no metrics and a note.
ReportRow evaluate_rope_pair(PairSpec spec, const SourceFile& golden, const SourceFile& mine, const RopeFix& fix,
                             FileCache& cache, const EvalOptions& eo);

}  // namespace msit::atb
