// Where a live first divergence goes: log line, status, events file, on_divergence command
// (docs/live-divergence.md, "When a divergence is found").
#include "daemon/divergence_alerts.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/base/printable.h"
#include "daemon/disk_space.h"
#include "daemon/events_file.h"
#include "daemon/jobs.h"
#include "daemon/log.h"

namespace msit::daemon {
namespace {

// clang-format off
struct Metric { const char* key; std::optional<double> DivergenceEvent::*field; };
constexpr Metric kMetrics[] = {
    {"cosine", &DivergenceEvent::cosine}, {"red", &DivergenceEvent::red},
    {"max_abs", &DivergenceEvent::max_abs}, {"max_rel", &DivergenceEvent::max_rel},
    {"mean_abs", &DivergenceEvent::mean_abs}, {"kl", &DivergenceEvent::kl},
};
// clang-format on

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

class AlertSink final : public DivergenceAlerts {
 public:
  AlertSink(const LiveSettings& s, Logger& log, AlertHooks hooks) : log_(log), hooks_(std::move(hooks)) {
    if (hooks_.clock == nullptr) hooks_.clock = &steady_clock();
    set_command(s.on_divergence, s.on_divergence_interval_s);
  }

  void restore(std::optional<EventsFile> file, std::set<std::string> ids, uint64_t count, uint64_t gaps,
               std::optional<DivergenceEvent> last) {
    file_ = std::move(file);
    ids_ = std::move(ids);
    count_ = count;
    gaps_ = gaps;
    last_ = std::move(last);
  }

  bool report(const DivergenceEvent& e) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (ids_.count(e.id) != 0) return false;
    DivergenceEvent ev = e;
    if (ev.time == 0) ev.time = static_cast<int64_t>(std::time(nullptr));
    ids_.insert(ev.id);
    const bool gap = ev.kind == EventKind::kNotCompared;
    ++(gap ? gaps_ : count_);
    log_.warning(divergence_log_line(ev));
    if (file_) {
      Status st = file_->append(divergence_json(ev));
      if (!st.ok())
        log_.error(st.error().to_string() +
                   "; this divergence is in the log only and may be reported again after a "
                   "restart");
    }
    if (gap) return true;
    maybe_run(ev);
    last_ = std::move(ev);
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
  uint64_t not_compared() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return gaps_;
  }
  std::optional<DivergenceEvent> last() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

  void set_command(const std::string& on_divergence, uint32_t interval_s) override {
    std::lock_guard<std::mutex> lock(mu_);
    argv_ = split_command(on_divergence);
    interval_ns_ = int64_t{interval_s} * 1'000'000'000;
    if (!argv_.empty() && !hooks_.run && !said_no_runner_) {
      log_.warning("on_divergence is set but this process cannot run commands; it is not run");
      said_no_runner_ = true;
    }
  }

 private:
  // At most one run per interval: a divergence in every rank at once pages once, not eight times.
  void maybe_run(const DivergenceEvent& ev) {
    if (argv_.empty() || !hooks_.run) return;
    const int64_t now = hooks_.clock->now_ns();
    if (last_run_ns_ && now - *last_run_ns_ < interval_ns_) {
      log_.info("on_divergence not run for " + printable(ev.id) + ": it ran " +
                std::to_string((now - *last_run_ns_) / 1'000'000'000) + " s ago (at most once per " +
                std::to_string(interval_ns_ / 1'000'000'000) + " s, on_divergence_interval_s)");
      return;
    }
    last_run_ns_ = now;
    hooks_.run(CommandRun{"on_divergence", "on_divergence", " for " + printable(ev.id), argv_,
                          divergence_environment(ev), true});
  }

  Logger& log_;
  AlertHooks hooks_;
  mutable std::mutex mu_;
  std::optional<EventsFile> file_;
  std::set<std::string> ids_;
  uint64_t count_ = 0, gaps_ = 0;
  std::optional<DivergenceEvent> last_;
  std::vector<std::string> argv_;
  int64_t interval_ns_ = 0;
  std::optional<int64_t> last_run_ns_;
  bool said_no_runner_ = false;
};

// "; recomputed: first divergence: my Add_7 (Add): the kernel disagrees ...; ..." (watch --recompute).
std::string recomputed_text(const DivergenceEvent& e) {
  std::string s;
  for (const auto& l : e.recompute) s += "; recomputed: " + printable(l);
  return s;
}

}  // namespace

nlohmann::json divergence_json(const DivergenceEvent& e) {
  nlohmann::json j;
  j["id"] = e.id;
  j["time"] = e.time;
  j["rank"] = e.rank < 0 ? nlohmann::json(nullptr) : nlohmann::json(e.rank);
  j["token"] = e.token;
  if (e.kind == EventKind::kNotCompared) {  // a coverage gap: no op, no metrics
    j["kind"] = "not_compared";
    j["not_compared"] = e.not_compared;
    j["root"] = e.root;
    j["golden_root"] = e.golden_root;
    return j;
  }
  j["op"] = e.op;
  j["op_type"] = e.op_type;
  for (const auto& m : kMetrics)
    if (const auto& v = e.*m.field; v && std::isfinite(*v)) j[m.key] = *v;
  j["error_level"] = e.error_level;
  j["error_jump"] = e.error_jump;
  j["my_path"] = e.my_path;
  j["golden_path"] = e.golden_path;
  j["root"] = e.root;
  j["golden_root"] = e.golden_root;
  if (!e.recompute.empty()) j["recompute"] = e.recompute;
  return j;
}

std::optional<DivergenceEvent> divergence_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) return std::nullopt;
  DivergenceEvent e;
  e.id = str(j, "id");
  if (str(j, "kind") == "not_compared") e.kind = EventKind::kNotCompared;
  e.not_compared = str(j, "not_compared");
  e.time = j.contains("time") && j["time"].is_number_integer() ? j["time"].get<int64_t>() : 0;
  e.rank = j.contains("rank") && j["rank"].is_number_integer() ? j["rank"].get<int64_t>() : -1;
  e.token = str(j, "token");
  e.op = str(j, "op");
  e.op_type = str(j, "op_type");
  for (const auto& m : kMetrics)
    if (j.contains(m.key) && j[m.key].is_number()) e.*m.field = j[m.key].get<double>();
  e.error_level = num(j, "error_level");
  e.error_jump = num(j, "error_jump");
  e.my_path = str(j, "my_path");
  e.golden_path = str(j, "golden_path");
  e.root = str(j, "root");
  e.golden_root = str(j, "golden_root");
  if (j.contains("recompute") && j["recompute"].is_array()) {
    for (const auto& l : j["recompute"])
      if (l.is_string()) e.recompute.push_back(l.get<std::string>());
  }
  return e;
}

std::string divergence_log_line(const DivergenceEvent& e) {
  if (e.kind == EventKind::kNotCompared)
    return "coverage: " + printable(e.not_compared) + " [id " + printable(e.id) + "]";
  std::string metrics;
  for (const auto& m : kMetrics)
    if (const auto& v = e.*m.field) metrics += std::string(m.key) + " " + number(*v) + ", ";
  return "divergence: rank " + (e.rank < 0 ? std::string("-") : std::to_string(e.rank)) + ", token " +
         printable(e.token) + ": first diverging op " + printable(e.op) + " (" + printable(e.op_type) +
         "): " + metrics + "error level " + number(e.error_level) + ", error jump " + number(e.error_jump) + "; mine " +
         printable(e.my_path) + "; golden " + printable(e.golden_path) + " [id " + printable(e.id) + "]" +
         recomputed_text(e);
}

std::vector<std::string> divergence_environment(const DivergenceEvent& e) {
  auto opt = [](const std::optional<double>& v) { return v ? number(*v) : std::string(); };
  return {
      "MSIT_DIVERGENCE_ID=" + e.id,
      "MSIT_DIVERGENCE_TIME=" + std::to_string(e.time),
      "MSIT_DIVERGENCE_RANK=" + (e.rank < 0 ? std::string() : std::to_string(e.rank)),
      "MSIT_DIVERGENCE_TOKEN=" + e.token,
      "MSIT_DIVERGENCE_OP=" + e.op,
      "MSIT_DIVERGENCE_OP_TYPE=" + e.op_type,
      "MSIT_DIVERGENCE_COSINE=" + opt(e.cosine),
      "MSIT_DIVERGENCE_RED=" + opt(e.red),
      "MSIT_DIVERGENCE_ERROR_LEVEL=" + number(e.error_level),
      "MSIT_DIVERGENCE_ERROR_JUMP=" + number(e.error_jump),
      "MSIT_DIVERGENCE_MY_PATH=" + e.my_path,
      "MSIT_DIVERGENCE_GOLDEN_PATH=" + e.golden_path,
      "MSIT_DIVERGENCE_ROOT=" + e.root,
      "MSIT_DIVERGENCE_GOLDEN_ROOT=" + e.golden_root,
  };
}

Result<std::unique_ptr<DivergenceAlerts>> open_divergence_alerts(const LiveSettings& s, Logger& log, AlertHooks hooks) {
  auto sink = std::make_unique<AlertSink>(s, log, std::move(hooks));
  std::optional<EventsFile> file;
  std::set<std::string> ids;
  std::optional<DivergenceEvent> last;
  uint64_t ours = 0, gaps = 0;
  if (!s.events_file.empty()) {
    std::set<std::string> roots;
    for (const auto& g : s.goldens) roots.insert(g.root);
    // Every id is remembered; the count and the last one are those of our roots (the unit's
    // instances may share one events file).
    auto on_event = [&](const nlohmann::json& j) {
      std::optional<DivergenceEvent> e = divergence_from_json(j);
      if (!e) return;
      ids.insert(e->id);
      if (roots.count(e->root) == 0) return;
      if (e->kind == EventKind::kNotCompared) {
        ++gaps;
        return;
      }
      ++ours;
      last = std::move(e);
    };
    std::string notes;
    MSIT_ASSIGN_OR_RETURN(EventsFile f, EventsFile::open(s.events_file, on_event, notes));
    if (!notes.empty()) log.warning(notes);
    if (ours != 0) log.info(s.events_file + ": " + std::to_string(ours) + " divergence(s) reported by earlier runs");
    file = std::move(f);
  }
  sink->restore(std::move(file), std::move(ids), ours, gaps, std::move(last));
  return std::unique_ptr<DivergenceAlerts>(std::move(sink));
}

Result<std::unique_ptr<DivergenceAlerts>> open_divergence_alerts(const LiveSettings& s, Logger& log) {
  return open_divergence_alerts(s, log, AlertHooks{});
}

}  // namespace msit::daemon
