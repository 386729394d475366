// The first bytes of each kind of temp file compact and watch write (docs/safety.md P5).
#include "common/compaction/temp_content.h"

#include <array>

#include "common/archive/container.h"
#include "common/io/derived_names.h"
#include "common/safety/leftovers.h"

namespace msit {
namespace {

// Every summary JSON starts with its created_by field: summary_to_json() writes the keys in
// order, created_by first (tests/unit/trust_roots_test.cpp checks it against the writer).
constexpr std::string_view kSummaryStart = R"({"created_by":"msit-compact )";
constexpr std::string_view kNpyStart = "\x93NUMPY";
constexpr std::string_view kNpzStart = "PK\x03\x04";  // a ZIP local file header
// SQLite's header; a new store's temp is created empty and renamed before SQLite writes it.
constexpr std::string_view kSqliteStart{"SQLite format 3\0", 16};

static_assert(kTempHeadBytes >= kSummaryStart.size() && kTempHeadBytes >= kSqliteStart.size() &&
              kTempHeadBytes >= archive::kMagic.size());

bool agrees(std::string_view head, std::string_view start) {
  const size_t n = head.size() < start.size() ? head.size() : start.size();
  return head.substr(0, n) == start.substr(0, n);
}

}  // namespace

bool our_temp_content(std::string_view final_name, std::string_view head) {
  // A power loss can keep a temp's later writes and lose its first (they were not fsynced yet):
  // its first blocks read as zeros (found by the crash states, docs/safety.md "Crash states").
  if (head.find_first_not_of('\0') == std::string_view::npos) return true;
  if (final_name.empty()) {
    for (std::string_view start : std::array{kSummaryStart, kNpyStart, kNpzStart, archive::kMagic, kSqliteStart})
      if (agrees(head, start)) return true;
    return false;
  }
  if (final_name == kStoreFileName) return agrees(head, kSqliteStart);
  auto derived = derived_name_of(final_name);
  if (!derived) return false;
  switch (derived->kind) {
    case DerivedKind::kSummary: return agrees(head, kSummaryStart);
    case DerivedKind::kMinMaxNpy: return agrees(head, kNpyStart);
    case DerivedKind::kMinMaxNpz: return agrees(head, kNpzStart);
    case DerivedKind::kArchive: return agrees(head, archive::kMagic);
  }
  return false;
}

}  // namespace msit
