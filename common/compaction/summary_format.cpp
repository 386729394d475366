#include "common/compaction/summary_format.h"

#include <cstdlib>

namespace msit {

Result<SummaryFormat> parse_summary_format(std::string_view v) {
  if (v == "store") return SummaryFormat::kStore;
  if (v == "json" || v == "rich") return SummaryFormat::kRich;
  if (v == "msit") return SummaryFormat::kMsit;
  return make_error("", Stage::kConfig, "summary format must be store, json or msit, not `" + std::string(v) + "`");
}

std::string_view summary_format_name(SummaryFormat f) {
  switch (f) {
    case SummaryFormat::kStore: return "store";
    case SummaryFormat::kRich: return "json";
    case SummaryFormat::kMsit: return "msit";
  }
  return "store";
}

Result<SummaryFormat> default_summary_format() {
  const char* env = std::getenv("MSIT_COMPACT_SUMMARY_FORMAT");
  if (env == nullptr || *env == '\0') return SummaryFormat::kStore;
  auto f = parse_summary_format(env);
  if (!f.ok()) return make_error("MSIT_COMPACT_SUMMARY_FORMAT", Stage::kConfig, f.error().message);
  return f;
}

}  // namespace msit
