// Keeping the evidence of a live divergence: which held raw files stay raw and which go to the
// compactor (docs/live-divergence.md, "Kept raw files and the cap"). Pure bookkeeping, no I/O.
#include "daemon/raw_holdback.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace msit::daemon {

RawHoldback::RawHoldback(uint32_t keep_ops_before, uint64_t cap_bytes)
    : keep_before_(keep_ops_before), cap_(cap_bytes) {}

std::set<uint64_t> RawHoldback::window_at_most(const Token& t, uint64_t below) const {
  std::set<uint64_t> w;
  for (auto it = std::make_reverse_iterator(t.seen.upper_bound(below)); it != t.seen.rend() && w.size() < keep_before_;
       ++it)
    w.insert(*it);
  return w;
}

void RawHoldback::take(Token& t, uint64_t order, std::vector<HeldFile>& out) {
  auto it = t.held.find(order);
  if (it == t.held.end()) return;
  for (uint64_t seq : it->second) {
    auto f = by_seq_.find(seq);
    held_bytes_ -= f->second.bytes;
    out.push_back(std::move(f->second));
    by_seq_.erase(f);
  }
  t.held.erase(it);
}

// Ops up to `cleared` had no divergence, so the next divergence is after them: of those, only
// the N latest can be among "the N ops before it". The rest go, and are forgotten.
void RawHoldback::trim_cleared(Token& t, std::vector<HeldFile>& out) {
  if (!t.has_cleared) return;
  std::set<uint64_t> keep = window_at_most(t, t.cleared);
  std::vector<uint64_t> gone;
  for (const auto& [order, seqs] : t.held) {
    if (order > t.cleared) break;
    if (keep.count(order) == 0) gone.push_back(order);
  }
  for (uint64_t order : gone) take(t, order, out);
  for (auto it = t.seen.begin(); it != t.seen.end() && *it <= t.cleared;)
    it = keep.count(*it) == 0 ? t.seen.erase(it) : std::next(it);
}

void RawHoldback::enforce_cap(std::vector<HeldFile>& out) {
  while (held_bytes_ > cap_ && !by_seq_.empty()) {
    auto oldest = by_seq_.begin();
    Token& t = tokens_.at(oldest->second.token_key);
    auto op = t.held.find(oldest->second.order);
    std::erase(op->second, oldest->first);
    if (op->second.empty()) t.held.erase(op);
    held_bytes_ -= oldest->second.bytes;
    out.push_back(std::move(oldest->second));
    by_seq_.erase(oldest);
  }
}

std::vector<HeldFile> RawHoldback::hold(HeldFile f) {
  Token& t = tokens_[f.token_key];
  if (t.diverged) return {std::move(f)};
  std::vector<HeldFile> out;
  t.seen.insert(f.order);
  uint64_t seq = next_seq_++;
  held_bytes_ += f.bytes;
  t.held[f.order].push_back(seq);
  by_seq_.emplace(seq, std::move(f));
  trim_cleared(t, out);  // a late file of an op already cleared and out of the window
  enforce_cap(out);
  return out;
}

std::vector<HeldFile> RawHoldback::cleared_through(const std::string& token_key, uint64_t order) {
  Token& t = tokens_[token_key];
  if (t.diverged) return {};
  t.cleared = t.has_cleared ? std::max(t.cleared, order) : order;
  t.has_cleared = true;
  std::vector<HeldFile> out;
  trim_cleared(t, out);
  return out;
}

RawHoldback::Decision RawHoldback::diverged_at(const std::string& token_key, uint64_t order) {
  Token& t = tokens_[token_key];
  Decision d;
  if (t.diverged) return d;
  std::set<uint64_t> keep = window_at_most(t, order == 0 ? 0 : order - 1);
  if (order == 0) keep.clear();  // nothing runs before the first op
  keep.insert(order);
  std::vector<uint64_t> orders;
  for (const auto& [o, seqs] : t.held) orders.push_back(o);
  for (uint64_t o : orders) take(t, o, keep.count(o) != 0 ? d.keep : d.release);
  t.diverged = true;
  t.seen.clear();
  return d;
}

std::vector<HeldFile> RawHoldback::token_done(const std::string& token_key) {
  std::vector<HeldFile> out;
  auto it = tokens_.find(token_key);
  if (it == tokens_.end()) return out;
  std::vector<uint64_t> orders;
  for (const auto& [o, seqs] : it->second.held) orders.push_back(o);
  for (uint64_t o : orders) take(it->second, o, out);
  tokens_.erase(it);
  return out;
}

uint64_t RawHoldback::held_bytes() const { return held_bytes_; }

size_t RawHoldback::held_files() const { return by_seq_.size(); }

}  // namespace msit::daemon
