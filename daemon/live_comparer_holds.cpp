// The raw files the live comparer holds back until their token's verdict, and those it keeps raw
// near a divergence (docs/live-divergence.md "Keeping the evidence", "Kept raw files and the cap").
#include <algorithm>
#include <string>
#include <utility>

#include "daemon/jobs.h"
#include "daemon/live_comparer.h"
#include "daemon/log.h"

namespace msit::daemon {
namespace {

// A held file the index has not placed in any token after this long is no dump data of the
// comparison (another kind of file, another layout): it is released.
constexpr int64_t kUnplacedNs = 10'000'000'000;

}  // namespace

bool LiveComparer::hold(const std::string& path, uint64_t bytes) {
  size_t root = root_of(path);
  if (keep_n_ == 0 || root == roots_.size()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (mark_dirty(root)) cv_.notify_all();  // a held file is not summarised: it wakes the comparer here instead
  if (kept_.count(path)) return true;
  if (released_.count(path)) return false;
  if (held_.count(path)) return true;
  if (held_bytes_ + bytes > cap_bytes_) {
    // Bounded: beyond the cap files are compacted as usual (their evidence is not kept).
    if (!cap_logged_)
      log_.warning(path + ": " + std::to_string(held_bytes_) + " bytes of raw files already held back for live " +
                   "divergence (held_raw_cap " + std::to_string(cap_bytes_) + "); compacting further files as usual");
    cap_logged_ = true;
    return false;
  }
  cap_logged_ = false;
  held_[path] = Held{bytes, steady_clock().now_ns()};
  held_bytes_ += bytes;
  return true;
}

std::vector<std::string> LiveComparer::take_releases() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(releases_, {});
}

void LiveComparer::release(const std::string& path) {
  auto it = held_.find(path);
  if (it == held_.end()) return;
  held_bytes_ -= it->second.bytes;
  held_.erase(it);
  released_.insert(path);
  releases_.push_back(path);
}

void LiveComparer::apply_verdict(const TokenVerdict& v) {
  std::vector<std::string> keep = files_to_keep(v, keep_n_);
  for (const auto& f : keep) {
    if (kept_.insert(f).second && held_.count(f)) {
      held_bytes_ -= held_[f].bytes;
      held_.erase(f);
      log_.info(f + ": kept raw (near the first divergence)");
    }
  }
  for (const auto& f : v.files)
    if (std::find(keep.begin(), keep.end(), f) == keep.end()) release(f);
}

void LiveComparer::settle_holds(size_t root, const std::vector<TokenVerdict>& verdicts,
                                const std::set<std::string>& indexed, int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t before = releases_.size();
  for (const TokenVerdict& v : verdicts) apply_verdict(v);
  std::vector<std::string> unplaced;
  for (const auto& [path, h] : held_)
    if (root_of(path) == root && !indexed.count(path) && !indexed.count(path.substr(0, path.rfind('/') + 1)) &&
        now_ns - h.since_ns >= kUnplacedNs)
      unplaced.push_back(path);
  for (const auto& p : unplaced) release(p);
  if (releases_.size() != before && wake_) wake_();
}

}  // namespace msit::daemon
