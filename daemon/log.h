// Daemon log lines: journald priority prefixes under systemd, human-readable lines otherwise.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace msit::daemon {

// Values are the syslog priorities journald understands in a "<N>" line prefix (sd-daemon.h).
enum class LogLevel : int { kError = 3, kWarning = 4, kNotice = 5, kInfo = 6, kDebug = 7 };

class Logger {
 public:
  // journal_prefixes: emit "<N>" instead of a timestamp and level word (stderr is the journal).
  explicit Logger(bool journal_prefixes) : journal_(journal_prefixes) {}
  // True when stderr is connected to journald (systemd sets JOURNAL_STREAM for the service).
  static bool stderr_is_journal();

  void log(LogLevel level, std::string_view message);
  void error(std::string_view m) { log(LogLevel::kError, m); }
  void warning(std::string_view m) { log(LogLevel::kWarning, m); }
  void info(std::string_view m) { log(LogLevel::kInfo, m); }
  void debug(std::string_view m) { log(LogLevel::kDebug, m); }
  void set_verbose(bool v) { verbose_ = v; }
  // `watch -q`: only warnings and errors.
  void set_quiet(bool q) { quiet_ = q; }

  // Tests capture lines instead of writing them to stderr.
  void capture_to(std::vector<std::string>* lines) { capture_ = lines; }

 private:
  bool journal_;
  bool verbose_ = false;
  bool quiet_ = false;
  std::mutex mu_;
  std::vector<std::string>* capture_ = nullptr;
};

}  // namespace msit::daemon
