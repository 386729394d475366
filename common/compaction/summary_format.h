// The summary formats by name, the default, and where the store must not be used: one home
// for the CLI (compact, watch) and the daemon's config file.
#pragma once

#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/compaction/compact.h"

namespace msit {

// "store", "json" (alias "rich"), "msit".
Result<SummaryFormat> parse_summary_format(std::string_view name);
std::string_view summary_format_name(SummaryFormat f);
// kStore, unless MSIT_COMPACT_SUMMARY_FORMAT names another format (an invalid value is an
// error at start-up, not a silent fallback).
Result<SummaryFormat> default_summary_format();

}  // namespace msit
