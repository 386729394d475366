// STAND-IN for t30-alerts' daemon/divergence_alerts.cpp, only so that t30-live's integration
// tests get an events file before the merge: the lead deletes this file. Logs one line and
// appends one JSON line per new id; ids already in the events file are not reported again.
#include <fcntl.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "daemon/divergence_alerts.h"
#include "daemon/log.h"

namespace msit::daemon {
namespace {

class StubAlerts final : public DivergenceAlerts {
 public:
  StubAlerts(const LiveSettings& s, Logger& log) : file_(s.events_file), log_(log) {
    if (file_.empty()) return;
    std::ifstream in(file_);
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("id") && j["id"].is_string()) ids_.insert(j["id"].get<std::string>());
    }
    count_ = ids_.size();
  }
  bool report(const DivergenceEvent& in) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ids_.insert(in.id).second) return false;
    DivergenceEvent e = in;
    if (e.time == 0) e.time = static_cast<int64_t>(std::time(nullptr));
    log_.warning("first divergence: " + e.root + " rank " + std::to_string(e.rank) + " token " + e.token + ": " + e.op +
                 " (" + e.op_type + "), error jump " + std::to_string(e.error_jump) + "; " + e.my_path + " vs " +
                 e.golden_path);
    if (!file_.empty()) {
      nlohmann::json j = {{"id", e.id},
                          {"time", e.time},
                          {"rank", e.rank},
                          {"token", e.token},
                          {"op", e.op},
                          {"op_type", e.op_type},
                          {"error_level", e.error_level},
                          {"error_jump", e.error_jump},
                          {"my_path", e.my_path},
                          {"golden_path", e.golden_path},
                          {"root", e.root},
                          {"golden_root", e.golden_root}};
      if (e.cosine) j["cosine"] = *e.cosine;
      if (e.red) j["red"] = *e.red;
      std::string line = j.dump() + "\n";
      int fd = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd >= 0) {
        if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
          log_.error(file_ + ": short write of an event");
        ::fsync(fd);
        ::close(fd);
      } else {
        log_.error(file_ + ": cannot append the event");
      }
    }
    ++count_;
    last_ = e;
    return true;
  }
  bool already_reported(const std::string& id) const override {
    std::lock_guard<std::mutex> lock(mu_);
    return ids_.count(id) != 0;
  }
  uint64_t count() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }
  std::optional<DivergenceEvent> last() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  std::string file_;
  Logger& log_;
  mutable std::mutex mu_;
  std::set<std::string> ids_;
  uint64_t count_ = 0;
  std::optional<DivergenceEvent> last_;
};

}  // namespace

Result<std::unique_ptr<DivergenceAlerts>> open_divergence_alerts(const LiveSettings& s, Logger& log) {
  return std::unique_ptr<DivergenceAlerts>(std::make_unique<StubAlerts>(s, log));
}

}  // namespace msit::daemon
