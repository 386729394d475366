// Files the daemon gave up on (bad content, never completed, hard-linked), held in bounded
// memory: a capped table of 16-byte fingerprints (so rescans skip them until they change),
// counts per reason with a few example paths, and full log lines only for the first few per
// reason and minute; the rest are summed up in one line per reason (docs/daemon.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/io/file.h"

namespace msit::daemon {

struct BadFileLimits {
  size_t max_remembered = 262'144;  // fingerprints kept (~40 bytes each: ~10 MiB at most)
  uint32_t lines_per_window = 5;    // full log lines per reason and window
  size_t examples = 3;              // example paths kept per reason for the summary line
  int64_t window_ns = 60'000'000'000;
};

class BadFiles {
 public:
  explicit BadFiles(BadFileLimits limits = {}) : limits_(limits) {}

  // A file given up on (left alone until it changes). Remembered while the table has room;
  // beyond it, the next rescan finds the file again and it is retried.
  void remember(const std::string& path, const FileIdentity& id);
  // True when `path` was given up on with this very identity: nothing changed, skip it.
  bool unchanged(const std::string& path, const FileIdentity& id) const;
  bool known(const std::string& path) const;
  void forget(const std::string& path);

  // Counts one failed file under `reason` (a stage name); true when its line is to be logged
  // in full now, false when it is left to the window's summary line.
  bool count(std::string_view reason, const std::string& path, int64_t now_ns);
  // Once a window has passed (or `force`, at shutdown): one line per reason whose lines were
  // suppressed ("N more files ...").
  std::vector<std::string> take_summary_lines(int64_t now_ns, bool force = false);

  size_t remembered() const { return table_.size(); }
  uint64_t not_remembered() const { return not_remembered_; }
  uint64_t lines_suppressed() const { return suppressed_total_; }
  // {"header": 20000, ...}: files counted per reason since start.
  std::map<std::string, uint64_t> by_reason() const;

 private:
  struct Reason {
    uint64_t files = 0;
    uint32_t logged_in_window = 0;
    uint64_t suppressed_in_window = 0;
    std::vector<std::string> examples;  // of the suppressed ones, at most limits_.examples
  };
  static uint64_t key_of(const std::string& path);
  static uint64_t fingerprint_of(const FileIdentity& id);

  BadFileLimits limits_;
  std::unordered_map<uint64_t, uint64_t> table_;  // path hash -> identity hash
  uint64_t not_remembered_ = 0;
  std::map<std::string, Reason, std::less<>> reasons_;  // stage names: a few dozen at most
  int64_t window_start_ns_ = 0;
  uint64_t suppressed_total_ = 0;
};

}  // namespace msit::daemon
