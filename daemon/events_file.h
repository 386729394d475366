// The live divergence events file (docs/live-divergence.md, "The events file"): JSON lines,
// append-only, one fsync per event, read back at open so that no event is written twice, a
// torn last line of a crash removed. Opened the way docs/safety.md D1 says.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/base/result.h"
#include "common/base/unique_fd.h"

namespace msit::daemon {

class EventsFile {
 public:
  // Opens (creating 0600) `path`: no symlink followed, a regular file of ours with one link that
  // nobody else may write, whose every line is an event object with an "id". Each event already
  // there goes to `on_event`, oldest first; `notes` gets what the log should say (a torn line
  // removed). Several watches (the unit's instances) may share one file: every read-back and
  // append holds an exclusive flock on it.
  static Result<EventsFile> open(const std::string& path, const std::function<void(const nlohmann::json&)>& on_event,
                                 std::string& notes);

  // One line, then fdatasync: the event is durable when this returns ok.
  Status append(const nlohmann::json& event);
  const std::string& path() const { return path_; }

 private:
  EventsFile(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
};

// The text of one event line (no newline); invalid UTF-8 in paths is replaced, never thrown on.
std::string event_line(const nlohmann::json& event);

}  // namespace msit::daemon
