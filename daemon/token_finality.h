// TokenFinality: which live tokens are final, from what each side shows of them pass by pass
// (docs/live-divergence.md "When a token's answer is final", rules 1-6).
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "common/compare/dump_index.h"

namespace msit::daemon {

// The time rules of finality (docs/live-divergence.md "When a token's answer is final"), used
// where no event tells that a side's files of a token are whole: how long a token's files must
// stay unchanged once a later token has started on that side; how long a side's whole tree must
// stay unchanged before its last token is final.
struct Finality {
  int64_t token_settle_ns = 1'000'000'000;
  int64_t quiet_ns = 3'000'000'000;
};

// The later of two write times; unknown when either is.
inline std::optional<int64_t> latest_write(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

// What one side (the watched dump or its golden) shows of one token at a pass.
struct SideToken {
  uint64_t sig = 0;                   // which files stand for it: how many, of which kind (0: none)
  bool whole = false;                 // every file is whole: a summary, a raw file the watcher holds complete,
                                      // or a raw golden file not written for token_settle_ns
  std::optional<int64_t> written_ns;  // last write among its files on the comparer's clock, if known
  // The watched side only: every file of the golden's token is paired with a file of this side
  // by this pass's matching (rule 4 of docs/live-divergence.md "When a token's answer is final").
  bool paired = false;
  // Which ops the token dumped, without the parts that differ between tokens (per group: GE op
  // names; FX node keys with their input and output counts); 0: not known (ATB rows). Rule 5
  // compares it with the previous token's.
  uint64_t shape = 0;
  // The watched side only, ATB/torch: it shows the very files (by their paths below the token
  // directory) of its previous token, which was final (rule 6, docs/live-divergence.md "ATB and
  // torch").
  bool same_files = false;

  // Counts one file of the token: its kind and the file count make the signature (a file
  // summarised changes it, and so does a new file); `file_whole` and `written` are what the
  // caller found of the file.
  void add_file(SourceKind kind, bool file_whole, std::optional<int64_t> written) {
    sig += uint64_t{1} << (8 * static_cast<unsigned>(kind));
    sig += uint64_t{1} << 48;
    whole = whole && file_whole;
    written_ns = latest_write(written_ns, written);
  }
  // How many files add_file() counted.
  uint64_t file_count() const { return sig >> 48; }
};

// Which rule made a side done with a token (docs/live-divergence.md "When a token's answer is
// final"), for the log line that says why a token was answered when it was.
enum class FinalRule : uint8_t {
  kNone,
  kLaterToken,   // 1. event: a later token, the same files, all whole
  kSettled,      // 2. time: a later token, nothing changed for token_settle_ns
  kQuiet,        // 3. time: the side's tree unchanged for quiet_ns
  kQuietWrites,  // 3. time: its files' write times are all older than quiet_ns
  kPaired,       // 4. event: the golden's token done, every golden file paired, all whole
  kSameShape,    // 5. event, the golden only: the ops of its previous (done) token, all whole
  kSameFiles,    // 6. event (ATB/torch): the golden's token done, the files of the previous final token, all whole
};
const char* final_rule_name(FinalRule r);

// Which tokens are final: fed what each side shows of each (rank, token) at every pass. A token
// is final when both sides are done with it (TokenFinality::side_done).
class TokenFinality {
 public:
  explicit TokenFinality(Finality f = {}) : f_(f) {}
  const Finality& limits() const { return f_; }
  struct Key {
    int64_t rank = -1;
    int64_t token = 0;
    auto operator<=>(const Key&) const = default;
  };
  // One pass: every token seen on each side. Tokens no longer seen are forgotten.
  void observe_sides(const std::map<Key, SideToken>& mine, const std::map<Key, SideToken>& golden, int64_t now_ns);
  // Signatures only (nothing known whole): the time rules alone decide.
  void observe(const std::map<Key, uint64_t>& mine, const std::map<Key, uint64_t>& golden, int64_t now_ns);
  bool is_final(const Key& k, int64_t now_ns) const;
  // Why each side is done with a final token (kNone for a side not done).
  std::pair<FinalRule, FinalRule> rules(const Key& k, int64_t now_ns) const;
  // Some token seen in the last pass is not final yet (the comparer keeps polling).
  bool any_pending(int64_t now_ns) const;
  // Some token not final yet becomes final by the event rule if the next pass sees the same
  // files: the comparer runs that pass at once instead of polling.
  bool final_on_next_pass(int64_t now_ns) const;
  // The earliest time at which a time rule can make a token that is not final yet final, if
  // nothing changes before (the comparer wakes then rather than polling blindly).
  std::optional<int64_t> next_time_rule_ns(int64_t now_ns) const;

 private:
  struct Side {
    SideToken at;                      // as the last pass saw it
    int64_t changed_ns = 0;            // when its signature last changed
    uint64_t changed_pass = 0;         // in which pass
    uint64_t later_pass = UINT64_MAX;  // first pass of the current run that saw a later token on its side
  };
  struct Seen {
    Side mine, golden;
  };
  struct Tree {                             // one side's whole tree
    std::map<int64_t, int64_t> last_token;  // per rank
    int64_t changed_ns = 0;
    uint64_t changed_pass = 0;
    std::optional<int64_t> written_ns;  // last write among all its files, if known
  };
  bool side_done(const Side& s, const Tree& t, const Key& k, int64_t now_ns) const {
    return side_rule(s, t, k, now_ns) != FinalRule::kNone;
  }
  // A later token than k on the side whose tree is `t`.
  static bool later_token(const Tree& t, const Key& k) {
    auto last = t.last_token.find(k.rank);
    return last != t.last_token.end() && last->second > k.token;
  }
  FinalRule side_rule(const Side& s, const Tree& t, const Key& k, int64_t now_ns) const;
  // Rule 4 for the watched side: paired with every golden file, all whole, the same files as the
  // previous pass, and the golden side done; or rule 6 (ATB/torch): the files of its previous
  // final token, all whole, and the golden side done.
  bool mine_paired_done(std::map<Key, Seen>::const_iterator it, int64_t now_ns) const;
  // Rule 4's pairing seen at two passes: every golden file paired, and no change since the last.
  bool paired_twice(const Side& s) const { return s.at.paired && s.changed_pass < pass_; }
  // Rule 5 for the golden side: its token shows the ops of its previous token, which is done by
  // rules 1-3, all whole (and, unless `next_pass`, the same files as the previous pass); the
  // watched side's token shows the ops of its own previous token too.
  bool golden_shape_done(std::map<Key, Seen>::const_iterator it, int64_t now_ns, bool next_pass = false) const;
  // Each side's rule for a token (rules 4-6 only where no other rule holds).
  FinalRule golden_rule(std::map<Key, Seen>::const_iterator it, int64_t now_ns) const;
  FinalRule mine_rule(std::map<Key, Seen>::const_iterator it, int64_t now_ns) const;
  void observe_side(const std::map<Key, SideToken>& now, Side Seen::*side, Tree& tree, std::map<Key, Seen>& next,
                    int64_t now_ns);

  Finality f_;
  std::map<Key, Seen> tokens_;
  Tree mine_tree_, golden_tree_;
  uint64_t pass_ = 0;
};

}  // namespace msit::daemon
