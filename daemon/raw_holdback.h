// Keeping the evidence of a live divergence (docs/live-divergence.md): with --golden and
// --keep-raw-near-divergence N, raw files are held back (not compacted) until their op's verdict
// is known; the diverging op's files and those of the N ops before it in the same token stay raw,
// everything else is compacted as usual. Pure bookkeeping, no I/O: the live comparer feeds it
// verdicts and hands what it returns to the compactor. Bounded: held bytes never exceed the cap.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace msit::daemon {

struct HeldFile {
  std::string path;  // as the watcher knows it
  uint64_t bytes = 0;
  std::string token_key;  // watched root, rank and token: one execution order
  uint64_t order = 0;     // the op's execution order in its token (several files share one op)
};

class RawHoldback {
 public:
  // keep_ops_before: N; cap_bytes: the most raw bytes held at once.
  RawHoldback(uint32_t keep_ops_before, uint64_t cap_bytes);

  // A summarised file whose op has no verdict yet. Returns the files the cap now forces out (the
  // oldest held first, possibly this one): compact them as usual and log one line.
  std::vector<HeldFile> hold(HeldFile f);
  // Every op of the token up to `order` has been evaluated and none diverged: the held files that
  // can no longer be near a divergence (more than N distinct ops before the next unknown op).
  std::vector<HeldFile> cleared_through(const std::string& token_key, uint64_t order);
  struct Decision {
    std::vector<HeldFile> keep;     // leave raw: the diverging op and the N ops before it
    std::vector<HeldFile> release;  // compact as usual
  };
  // The token's first divergence is the op at `order`. Files held later in that token are
  // released as they come (a token has one first divergence).
  Decision diverged_at(const std::string& token_key, uint64_t order);
  // The token is complete (or its root dropped): everything still held in it is released.
  std::vector<HeldFile> token_done(const std::string& token_key);

  uint64_t held_bytes() const;
  size_t held_files() const;

 private:
  struct Token {
    std::map<uint64_t, std::vector<uint64_t>> held;  // op order -> hold sequence numbers
    // Distinct ops seen in this token, pruned to those that can still be in a kept window:
    // "the N ops before" counts ops, not files, and an op forced out by the cap still counts.
    std::set<uint64_t> seen;
    bool has_cleared = false;
    uint64_t cleared = 0;   // every op up to here evaluated, none diverged
    bool diverged = false;  // one first divergence per token: later files are released
  };
  // The N largest seen orders <= `below` (inclusive), i.e. the ops a later divergence keeps.
  std::set<uint64_t> window_at_most(const Token& t, uint64_t below) const;
  void take(Token& t, uint64_t order, std::vector<HeldFile>& out);  // every held file of one op
  void trim_cleared(Token& t, std::vector<HeldFile>& out);
  void enforce_cap(std::vector<HeldFile>& out);

  uint32_t keep_before_;
  uint64_t cap_;
  uint64_t held_bytes_ = 0;
  uint64_t next_seq_ = 0;
  std::map<uint64_t, HeldFile> by_seq_;  // oldest first: the order the cap forces files out
  std::map<std::string, Token> tokens_;
};

}  // namespace msit::daemon
