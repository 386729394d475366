// Names derived from a raw dump file's name (summaries, old-converter files, archives).
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

}  // namespace msit
