// Each subcommand registers its options and a callback; main() runs the one chosen.
#pragma once

#include <CLI/CLI.hpp>

namespace msit::cli {

// Exit codes shared by all subcommands (documented in README).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;     // some files failed / divergence found (compare)
inline constexpr int kExitUsage = 2;        // bad command line
inline constexpr int kExitBadInput = 3;     // input unreadable or invalid
inline constexpr int kExitInconclusive = 4; // compare: nothing failed, but some rows were judged from statistics only
inline constexpr int kExitConfig = 78;      // EX_CONFIG: configuration error (no restart)

// Each returns the subcommand; its callback stores the exit code in `exit_code`.
CLI::App* register_compact(CLI::App& app, int& exit_code);
CLI::App* register_inspect(CLI::App& app, int& exit_code);
CLI::App* register_watch(CLI::App& app, int& exit_code);
CLI::App* register_status(CLI::App& app, int& exit_code);
CLI::App* register_compare(CLI::App& app, int& exit_code);
CLI::App* register_restore(CLI::App& app, int& exit_code);
CLI::App* register_export(CLI::App& app, int& exit_code);

}  // namespace msit::cli
