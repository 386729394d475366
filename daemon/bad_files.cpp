// Bounded memory and log volume for files the daemon gives up on (docs/daemon.md).
#include "daemon/bad_files.h"

#include <functional>

namespace msit::daemon {

uint64_t BadFiles::key_of(const std::string& path) { return std::hash<std::string_view>{}(path); }

uint64_t BadFiles::fingerprint_of(const FileIdentity& id) {
  // splitmix64 steps over the fields that say "this is still the same file, unchanged".
  auto mix = [](uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
  };
  uint64_t h = mix(0, id.dev);
  h = mix(h, id.ino);
  h = mix(h, id.size);
  return mix(h, static_cast<uint64_t>(id.mtime_ns));
}

void BadFiles::remember(const std::string& path, const FileIdentity& id) {
  const uint64_t key = key_of(path);
  auto it = table_.find(key);
  if (it != table_.end()) {
    it->second = fingerprint_of(id);
    return;
  }
  if (table_.size() >= limits_.max_remembered) {
    ++not_remembered_;
    return;
  }
  table_.emplace(key, fingerprint_of(id));
}

bool BadFiles::unchanged(const std::string& path, const FileIdentity& id) const {
  auto it = table_.find(key_of(path));
  return it != table_.end() && it->second == fingerprint_of(id);
}

bool BadFiles::known(const std::string& path) const { return table_.count(key_of(path)) != 0; }

void BadFiles::forget(const std::string& path) { table_.erase(key_of(path)); }

bool BadFiles::count(std::string_view reason, const std::string& path, int64_t now_ns) {
  if (window_start_ns_ == 0) window_start_ns_ = now_ns;
  auto it = reasons_.find(reason);
  if (it == reasons_.end()) it = reasons_.emplace(std::string(reason), Reason{}).first;
  Reason& r = it->second;
  ++r.files;
  if (r.logged_in_window < limits_.lines_per_window) {
    ++r.logged_in_window;
    return true;
  }
  ++r.suppressed_in_window;
  ++suppressed_total_;
  if (r.examples.size() < limits_.examples) r.examples.push_back(path);
  return false;
}

std::vector<std::string> BadFiles::take_summary_lines(int64_t now_ns, bool force) {
  std::vector<std::string> lines;
  if (window_start_ns_ == 0 || (!force && now_ns - window_start_ns_ < limits_.window_ns)) return lines;
  window_start_ns_ = now_ns;
  for (auto& [name, r] : reasons_) {
    if (r.suppressed_in_window > 0) {
      std::string line = std::to_string(r.suppressed_in_window) + " more file" +
                         (r.suppressed_in_window == 1 ? "" : "s") + " failed at stage " + name +
                         " and were left alone without a line each (" + std::to_string(r.files) +
                         " in all; counts per reason in the status file), e.g.";
      for (size_t i = 0; i < r.examples.size(); ++i) line += (i == 0 ? " " : ", ") + r.examples[i];
      lines.push_back(std::move(line));
    }
    r.logged_in_window = 0;
    r.suppressed_in_window = 0;
    r.examples.clear();
  }
  return lines;
}

std::map<std::string, uint64_t> BadFiles::by_reason() const {
  std::map<std::string, uint64_t> out;
  for (const auto& [name, r] : reasons_) out.emplace(name, r.files);
  return out;
}

}  // namespace msit::daemon
