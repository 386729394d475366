// Conventions every subcommand follows: the exit-status table, -v/-q, error lines, and the
// options whose range and default are shared with other commands and the watch config file.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/compaction/option_limits.h"

namespace msit::cli {

// Exit statuses of every command (docs/man/msit-compact.1 EXIT STATUS, README "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;      // problems found: files failed, divergence, conflicts
inline constexpr int kExitUsage = 2;         // bad command line
inline constexpr int kExitBadInput = 3;      // a path given is missing, unreadable or not what it should be
inline constexpr int kExitInconclusive = 4;  // compare: nothing failed, but some rows were judged from statistics only
// compare decides between 0, 1, 3 and 4 in one place for every flow: compare_exit_status()
// (cli/compare_outcome.h); a compare that pairs nothing is kExitBadInput (no_pairs_error()).
inline constexpr int kExitConfig = 78;       // EX_CONFIG: configuration error (no restart)
inline constexpr int kExitSignalBase = 128;  // interrupted: 128 + the signal (130 SIGINT, 143 SIGTERM)

// A path given on the command line is missing or unusable: main() prints it, exit 3.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// -q: only warnings and errors; -v: every detail (each file, each warning).
enum class Verbosity : uint8_t { kQuiet, kNormal, kVerbose };
void add_verbosity(CLI::App* cmd, Verbosity& v, std::string_view verbose_help);

// "msit-compact CMD: error: MESSAGE" (or "warning") on stderr: one shape for every command.
void print_error(std::string_view cmd, std::string_view message);
void print_warning(std::string_view cmd, std::string_view message);
// The first kWarningsShown warnings, then a count of the rest; every one with -v.
inline constexpr size_t kWarningsShown = 10;
void print_warnings(std::string_view cmd, const std::vector<std::string>& warnings, Verbosity v);

// --jobs, --zstd-level, --zstd-workers, --sketch-width with their shared ranges.
CLI::Option* add_jobs(CLI::App* cmd, unsigned& v, const std::string& help);
CLI::Option* add_int_setting(CLI::App* cmd, const IntSetting& s, int& v, const std::string& help);
CLI::Option* add_int_setting(CLI::App* cmd, const IntSetting& s, uint32_t& v, const std::string& help);
CLI::Option* add_sketch_width(CLI::App* cmd, uint32_t& v, const std::string& help);
// The --sketch-width check beyond its range (also used by `watch`'s table-driven options).
CLI::Validator power_of_two();
// --sketch-bits of `compact` and `watch`: 32 or 64.
CLI::Option* add_sketch_bits(CLI::App* cmd, unsigned& v);

// Throws InputError unless `path` exists (lstat: a dangling symlink exists); `what` says what
// it should be ("dump tree", "archive or directory").
void require_exists(const std::string& path, const char* what);
// Throws InputError unless `path` is a directory (symlinks to one are followed: a root given
// on the command line is trusted as given).
void require_directory(const std::string& path);

}  // namespace msit::cli
