// Names derived from a raw dump file's name (summaries, old-converter files, archives), their
// inverse, and our own claim and store file names.
#include "common/io/derived_names.h"

#include <cstdint>

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

std::string claim_name_for(std::string_view name, std::string_view tag, std::optional<uint32_t> owner) {
  std::string out = std::string(kClaimPrefix) + std::string(tag);
  if (owner) out += "-" + std::to_string(*owner);
  return out + "." + std::string(name);
}

bool is_claim_name(std::string_view name) { return name.starts_with(kClaimPrefix); }

bool is_lock_temp_name(std::string_view name) {
  if (!name.starts_with(kTempPrefix)) return false;
  name.remove_prefix(kTempPrefix.size());
  if (!name.starts_with(kLockName)) return false;
  name.remove_prefix(kLockName.size());
  return name.size() > 1 && name.front() == '.' && name.find('/') == std::string_view::npos;
}

std::optional<std::string> final_name_of_temp(std::string_view name) {
  if (!name.starts_with(kTempPrefix) || name.find('/') != std::string_view::npos) return std::nullopt;
  name.remove_prefix(kTempPrefix.size());
  if (name.size() < kClaimTagChars) return std::nullopt;
  const std::string_view tag = name.substr(name.size() - kClaimTagChars);
  for (char c : tag)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return std::nullopt;
  if (name.size() == kClaimTagChars) return std::string();
  if (name.size() < kClaimTagChars + 2 || name[name.size() - kClaimTagChars - 1] != '.') return std::nullopt;
  return std::string(name.substr(0, name.size() - kClaimTagChars - 1));
}

namespace {

struct ClaimParts {
  std::optional<uint32_t> owner;
  std::string_view raw;
};

// `{tag}.{name}` or `{tag}-{digits}.{name}` after the prefix.
std::optional<ClaimParts> parse_claim(std::string_view n) {
  if (!is_claim_name(n)) return std::nullopt;
  n.remove_prefix(kClaimPrefix.size());
  if (n.size() <= kClaimTagChars + 1) return std::nullopt;
  ClaimParts parts;
  if (n[kClaimTagChars] == '-') {
    size_t i = kClaimTagChars + 1;
    uint64_t uid = 0;
    const size_t digits_from = i;
    while (i < n.size() && n[i] >= '0' && n[i] <= '9' && i - digits_from < 10)
      uid = uid * 10 + static_cast<uint64_t>(n[i++] - '0');
    if (i == digits_from || i >= n.size() || n[i] != '.' || uid > UINT32_MAX) return std::nullopt;
    parts.owner = static_cast<uint32_t>(uid);
    parts.raw = n.substr(i + 1);
  } else if (n[kClaimTagChars] == '.') {
    parts.raw = n.substr(kClaimTagChars + 1);
  } else {
    return std::nullopt;
  }
  if (parts.raw.empty()) return std::nullopt;
  return parts;
}

}  // namespace

std::string raw_name_of_claim(std::string_view n) {
  auto p = parse_claim(n);
  return p ? std::string(p->raw) : std::string();
}

std::optional<uint32_t> claim_owner_of(std::string_view n) {
  auto p = parse_claim(n);
  return p ? p->owner : std::nullopt;
}

}  // namespace msit
