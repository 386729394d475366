// Shared option definitions and error lines of the subcommands (see options.h).
#include "cli/options.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "common/base/printable.h"

namespace msit::cli {
namespace {

std::string flag_of(const IntSetting& s) {
  std::string f = "--" + std::string(s.key);
  for (char& c : f) c = c == '_' ? '-' : c;
  return f;
}

template <class T>
CLI::Option* add_ranged(CLI::App* cmd, const IntSetting& s, T& v, const std::string& help) {
  return cmd->add_option(flag_of(s), v, help + " (default " + std::to_string(s.def) + ")")
      ->check(CLI::Range(static_cast<T>(s.min), static_cast<T>(s.max)));
}

}  // namespace

void add_verbosity(CLI::App* cmd, Verbosity& v, std::string_view verbose_help) {
  auto* verbose = cmd->add_flag_callback(
      "-v,--verbose", [&v] { v = Verbosity::kVerbose; }, std::string(verbose_help));
  cmd->add_flag_callback(
         "-q,--quiet", [&v] { v = Verbosity::kQuiet; }, "Print only warnings and errors")
      ->excludes(verbose);
}

namespace {

// The message may carry file names: printable() keeps it on one line, escape sequences inert.
void print_line(std::string_view cmd, const char* level, std::string_view raw) {
  const std::string message = printable(raw);
  std::fprintf(stderr, "msit-compact%s%.*s: %s: %.*s\n", cmd.empty() ? "" : " ", static_cast<int>(cmd.size()),
               cmd.data(), level, static_cast<int>(message.size()), message.data());
}

}  // namespace

void print_error(std::string_view cmd, std::string_view message) { print_line(cmd, "error", message); }
void print_warning(std::string_view cmd, std::string_view message) { print_line(cmd, "warning", message); }

void print_warnings(std::string_view cmd, const std::vector<std::string>& warnings, Verbosity v) {
  const size_t shown = v == Verbosity::kVerbose ? warnings.size() : std::min(kWarningsShown, warnings.size());
  for (size_t i = 0; i < shown; ++i) print_warning(cmd, warnings[i]);
  if (shown < warnings.size())
    print_warning(cmd, std::to_string(warnings.size() - shown) + " more warnings (-v lists every one)");
}

CLI::Option* add_jobs(CLI::App* cmd, unsigned& v, const std::string& help) {
  return cmd->add_option("-j,--jobs", v, help + " (default: one per core)")
      ->check(CLI::Range(static_cast<unsigned>(kJobs.min), static_cast<unsigned>(kJobs.max)));
}

CLI::Option* add_int_setting(CLI::App* cmd, const IntSetting& s, int& v, const std::string& help) {
  return add_ranged(cmd, s, v, help);
}

CLI::Option* add_int_setting(CLI::App* cmd, const IntSetting& s, uint32_t& v, const std::string& help) {
  return add_ranged(cmd, s, v, help);
}

CLI::Option* add_sketch_width(CLI::App* cmd, uint32_t& v, const std::string& help) {
  return add_ranged(cmd, kSketchWidth, v, help + ", a power of two")->check(power_of_two());
}

CLI::Validator power_of_two() {
  return CLI::Validator(
      [](std::string& s) {
        int64_t n = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
        bool ok = ec == std::errc() && end == s.data() + s.size() && is_valid_sketch_width(n);
        return ok ? std::string() : "Value " + s + " is not a power of two";
      },
      "POWER_OF_TWO");
}

CLI::Option* add_sketch_bits(CLI::App* cmd, unsigned& v) {
  return cmd
      ->add_option("--sketch-bits", v,
                   "Bits per sketch bucket in the store: 32 (default, half the size) or 64 (bit-exact)")
      ->check(CLI::IsMember({32u, 64u}));
}

void require_exists(const std::string& path, const char* what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return;
  const int err = errno;
  throw InputError(path + ": open: cannot use it as " + what + " (" + std::strerror(err) + ")");
}

void require_directory(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw InputError(path + ": open: cannot use it as a dump tree (" + std::strerror(err) + ")");
  }
  if (!S_ISDIR(st.st_mode)) throw InputError(path + ": open: not a directory");
}

}  // namespace msit::cli
