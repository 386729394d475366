// GE statistics-mode dumps (`ge.exec.dumpData = "stats"`, docs/formats/ge-dump.md §8): one CSV per op dump
// file, one line per tensor, read as a summary without sketch (statistics only).
#pragma once

#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/summary/summary.h"

namespace msit {

// Files larger than this are refused before reading (a stats CSV is a few lines per tensor).
inline constexpr size_t kGeStatsCsvMaxBytes = 16 << 20;
// Lines (tensors) per file at most; more is not a stats dump.
inline constexpr size_t kGeStatsCsvMaxLines = 1 << 16;

// Chunks appended to the same file repeat the header (or not, docs/formats/ge-dump.md §8): both accepted.
// Tensors whose stats the device marked failed (`NA`) have stats_available = false. Columns
// absent from the header stay unknown (mean, l2norm), never zero.
Result<FileSummary> parse_ge_stats_csv(std::string_view text, const std::string& path);
Result<FileSummary> read_ge_stats_csv(const std::string& path);

}  // namespace msit
