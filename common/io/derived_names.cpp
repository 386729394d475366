// Names derived from a raw dump file's name (summaries, old-converter files, archives), their
// inverse, and our own claim and store file names.
#include "common/io/derived_names.h"

namespace msit {

std::string summary_name_for(std::string_view raw) { return std::string(raw) + std::string(kSummarySuffix); }

std::string min_max_name_for(std::string_view raw) {
  constexpr std::string_view kNpy = ".npy";
  if (raw.ends_with(kNpy)) return std::string(raw.substr(0, raw.size() - kNpy.size())) + std::string(kMinMaxNpySuffix);
  return std::string(raw) + std::string(kMinMaxNpzSuffix);
}

std::string archive_name_for(std::string_view raw) { return std::string(raw) + std::string(kArchiveSuffix); }

bool is_archive_name(std::string_view name) {
  return name.size() > kArchiveSuffix.size() && name.ends_with(kArchiveSuffix);
}

std::string_view without_archive_suffix(std::string_view name) {
  return is_archive_name(name) ? name.substr(0, name.size() - kArchiveSuffix.size()) : name;
}

std::optional<DerivedName> derived_name_of(std::string_view n) {
  struct Rule {
    std::string_view suffix;
    DerivedKind kind;
    std::string_view raw_suffix;  // what the derived name dropped from the raw name
  };
  static constexpr Rule kRules[] = {
      {kSummarySuffix, DerivedKind::kSummary, ""},
      {kMinMaxNpySuffix, DerivedKind::kMinMaxNpy, ".npy"},
      {kMinMaxNpzSuffix, DerivedKind::kMinMaxNpz, ""},
      {kArchiveSuffix, DerivedKind::kArchive, ""},
  };
  for (const Rule& r : kRules) {
    if (n.size() > r.suffix.size() && n.ends_with(r.suffix))
      return DerivedName{r.kind, std::string(n.substr(0, n.size() - r.suffix.size())) + std::string(r.raw_suffix)};
  }
  return std::nullopt;
}

bool is_store_file_name(std::string_view n) {
  if (!n.starts_with(kStoreFileName)) return false;
  std::string_view rest = n.substr(kStoreFileName.size());
  return rest.empty() || rest == "-wal" || rest == "-shm" || rest == "-journal";
}

std::string claim_name_for(std::string_view name, std::string_view tag) {
  return std::string(kClaimPrefix) + std::string(tag) + "." + std::string(name);
}

bool is_claim_name(std::string_view name) { return name.starts_with(kClaimPrefix); }

std::string raw_name_of_claim(std::string_view n) {
  if (!is_claim_name(n)) return {};
  n.remove_prefix(kClaimPrefix.size());
  if (n.size() <= kClaimTagChars + 1 || n[kClaimTagChars] != '.') return {};
  return std::string(n.substr(kClaimTagChars + 1));
}

}  // namespace msit
