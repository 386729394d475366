// Daemon log lines: journald priority prefixes under systemd, human-readable lines otherwise.
#include "daemon/log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "common/base/printable.h"
#include "common/safety/proc_text.h"

namespace msit::daemon {

bool Logger::stderr_is_journal() {
  // JOURNAL_STREAM is "DEV:INO" of the journal socket; it is inherited by children whose stderr
  // was redirected elsewhere, so compare it with stderr itself.
  const char* js = std::getenv("JOURNAL_STREAM");
  if (js == nullptr) return false;
  const auto id = journal_stream(js);
  if (!id) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == id->first &&
         static_cast<unsigned long long>(st.st_ino) == id->second;
}

static const char* level_word(LogLevel l) {
  switch (l) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kNotice: return "notice";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "info";
}

void Logger::log(LogLevel level, std::string_view message) {
  if (level == LogLevel::kDebug && !verbose_) return;
  if (quiet_ && level > LogLevel::kWarning) return;
  std::string line;
  if (journal_) {
    line = "<" + std::to_string(static_cast<int>(level)) + ">";
  } else {
    char stamp[32];
    std::time_t t = std::time(nullptr);
    struct tm tm {};
    ::localtime_r(&t, &tm);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    line = std::string(stamp) + " msit-compact watch: " + level_word(level) + ": ";
  }
  // One record, one line: a file name with a newline must not forge a second record, and
  // escape sequences must not reach the journal or a terminal.
  const std::string text = printable(message);
  line.append(text);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  if (capture_ != nullptr) {
    capture_->push_back(text);
    return;
  }
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace msit::daemon
