// Names derived from a raw dump file's name (summaries, old-converter files, archives) and the
// names of our own files (temps, claims, lock, store): every suffix and prefix has its home here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msit {

inline constexpr std::string_view kSummarySuffix = ".summary.json";   // NAME -> NAME.summary.json
inline constexpr std::string_view kMinMaxNpySuffix = "_min_max.npy";  // STEM.npy -> STEM_min_max.npy
inline constexpr std::string_view kMinMaxNpzSuffix = "_min_max.npz";  // NAME -> NAME_min_max.npz
inline constexpr std::string_view kArchiveSuffix = ".zst";            // NAME -> NAME.zst
// GE's statistics mode writes NAME.csv where a tensor dump NAME would be (docs/formats/ge-dump.md §8).
inline constexpr std::string_view kStatsCsvSuffix = ".csv";
// Temp files start with this prefix so no reader mistakes them for dumps or summaries.
inline constexpr std::string_view kTempPrefix = ".msit-tmp.";
// Private name of a file being removed: `.msit-claim.{6 random}-{uid}.{name}`, the uid being the
// remover's (common/io/noreplace.h); recovery honours only its own uid's (docs/safety.md, P5).
inline constexpr std::string_view kClaimPrefix = ".msit-claim.";
inline constexpr size_t kClaimTagChars = 6;
// The tree owner's lock file at a dump root (common/safety/tree_lock.h).
inline constexpr std::string_view kLockName = ".msit-compact.lock";
// File name of a dump root's summary store (common/store); SQLite adds -wal, -shm, -journal.
inline constexpr std::string_view kStoreFileName = "msit-summary.db";

// These take a file name or a whole path alike: they only add or remove a suffix.
std::string summary_name_for(std::string_view raw);  // NAME.summary.json
// The old converter's name: STEM.npy -> STEM_min_max.npy, any other NAME -> NAME_min_max.npz.
std::string min_max_name_for(std::string_view raw);
std::string archive_name_for(std::string_view raw);  // NAME.zst
// NAME.zst with a non-empty NAME.
bool is_archive_name(std::string_view name);
// What an archive restores to and summarises as: NAME for NAME.zst, anything else unchanged.
std::string_view without_archive_suffix(std::string_view name);

// The inverse of the *_for() functions above: which raw file a derived name belongs to.
enum class DerivedKind : uint8_t { kSummary, kMinMaxNpy, kMinMaxNpz, kArchive };
struct DerivedName {
  DerivedKind kind;
  std::string raw_name;  // never empty: a bare suffix (".zst") is not a derived name
};
std::optional<DerivedName> derived_name_of(std::string_view name);

// The store file or one of SQLite's companions (-wal, -shm, -journal).
bool is_store_file_name(std::string_view name);

// `.msit-claim.{tag}-{owner}.{name}` for a tag of kClaimTagChars characters and the uid of the
// process that claims (`.msit-claim.{tag}.{name}` without an owner: older builds), and back.
std::string claim_name_for(std::string_view name, std::string_view tag, std::optional<uint32_t> owner = std::nullopt);
bool is_claim_name(std::string_view name);
// The name a claim name stands for ("" when it is not a well-formed claim name).
std::string raw_name_of_claim(std::string_view claim_name);
// The owner uid a claim name carries (nullopt: none, or not a well-formed claim name).
std::optional<uint32_t> claim_owner_of(std::string_view claim_name);

// The name a temp of ours was to take: `.msit-tmp.{final}.{tag}` -> final, `.msit-tmp.{tag}`
// (a final name too long to carry) -> "", with {tag} exactly kClaimTagChars letters or digits, as
// DirTemp::create() and temp_name_for() make them; nullopt for any other name (never ours).
std::optional<std::string> final_name_of_temp(std::string_view name);

// `.msit-tmp..msit-compact.lock.{tag}`: the temp TreeLock::acquire creates, locks and then
// links to kLockName (common/safety/publish.h create_temp_at); a kill -9 in between leaves it.
bool is_lock_temp_name(std::string_view name);

}  // namespace msit
