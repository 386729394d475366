// Turns one matched pair into one report row: exact streaming compare when both sides are raw,
// summary compare (sketch / values / hash / stats) otherwise, _min_max stats errors.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "common/compare/file_cache.h"
#include "common/compare/matching.h"
#include "common/compare/metrics.h"
#include "common/report/report_row.h"

namespace msit {

struct EvalOptions {
  size_t chunk_elements = size_t{1} << 16;  // per side per step of the lockstep read
  StatsOptions stats;                       // for raw files summarised on the fly
  // Cores no engine worker is using (the engine's counter; nullptr: none). A large raw pair
  // takes what it finds here for helper threads and gives it back when done.
  std::atomic<int>* spare_threads = nullptr;
};

// golden_file / my_file: the side's file when the caller already loaded it (batched reads),
// else nullptr and the cache loads it.
ReportRow evaluate_pair(const PairSpec& p, FileCache& cache, const EvalOptions& opts,
                        std::shared_ptr<LoadedFile> golden_file = nullptr,
                        std::shared_ptr<LoadedFile> my_file = nullptr);
// The same, moving the two path cells out of p instead of copying them (200,000 strings for
// 100,000 pairs): for callers done with the pair.
ReportRow evaluate_pair(PairSpec&& p, FileCache& cache, const EvalOptions& opts,
                        std::shared_ptr<LoadedFile> golden_file, std::shared_ptr<LoadedFile> my_file);

// "[2, 3]" as Python prints list(shape).
std::string shape_cell(const std::vector<uint64_t>& shape);

}  // namespace msit
