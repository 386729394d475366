// Live divergence (docs/live-divergence.md "How the live comparer decides"): while `watch DIR
// --golden GOLDEN` runs, each watched root is compared with its golden by compare's own library
// (match_compare, evaluate_pair, mark_error_jumps), and each token's first divergence is
// reported through the alert sink once the token is final.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/base/stage_thread.h"
#include "common/compare/compare.h"
#include "common/compare_atb/atb_compare.h"
#include "common/io/file.h"
#include "common/report/report_row.h"
#include "daemon/divergence_alerts.h"
#include "daemon/live_settings.h"

namespace msit::daemon {

class Logger;
struct AtbLiveState;  // daemon/live_compare_atb.h

// The time rules of finality (docs/live-divergence.md "When a token's answer is final"), used
// where no event tells that a side's files of a token are whole: how long a token's files must
// stay unchanged once a later token has started on that side; how long a side's whole tree must
// stay unchanged before its last token is final.
struct Finality {
  int64_t token_settle_ns = 1'000'000'000;
  int64_t quiet_ns = 3'000'000'000;
};

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

// The stable id of a reported divergence: the same (watched root, rank, token, op) always gives
// the same id, so a restart never reports twice (the alert sink dedupes by id).
std::string divergence_id(const std::string& root, int64_t rank, int64_t token, const std::string& op);

// The first divergence of each token in rows that mark_error_jumps has marked: token -> row index.
std::map<int64_t, size_t> first_divergences(const std::vector<ReportRow>& rows);

// The event for row r (a "first" row) of the given roots.
DivergenceEvent divergence_event(const ReportRow& r, const std::string& root, const std::string& golden_root);

// What a pass says about the raw files of a final token (for keeping the evidence): the token's
// files on the watched side, its ops' files in execution order, and which of those diverged first.
struct TokenVerdict {
  std::vector<std::string> files;     // every file of the token on the watched side
  std::vector<std::string> op_files;  // distinct files of its rows, in report (execution) order
  std::optional<size_t> diverged;     // index into op_files of the first divergence
  // The other files of an op file's op, kept with it (an ATB node's intensors with its output).
  std::map<std::string, std::vector<std::string>> op_members;
};
// The files to keep raw of a token: the diverging op's and those of the `n` ops before it (with
// their members).
std::vector<std::string> files_to_keep(const TokenVerdict& v, uint32_t n);

// One watched root and its golden, compared pass by pass. Not thread-safe: one pass at a time.
class LiveRootCompare {
 public:
  // op_mapping_file: ATB vs torch, msit's -mf (empty: none).
  LiveRootCompare(std::string root, std::string golden, Finality f = {}, std::string op_mapping_file = {});
  // Re-matches both trees with compare's library, evaluates the pairs it has no row for yet,
  // re-runs the first-divergence post-pass and returns the events of tokens that became final
  // with a divergence (each token at most once per process). `note` receives lines worth logging.
  // `verdicts` (may be null) receives each final token's files and verdict; `indexed` (may be
  // null) every watched-side file the index placed in a token, and each directory of a token
  // left unlisted past the window (with a trailing '/': its files are placed too).
  std::vector<DivergenceEvent> pass(int64_t now_ns, std::vector<std::string>& notes,
                                    std::vector<TokenVerdict>* verdicts = nullptr,
                                    std::set<std::string>* indexed = nullptr);
  // The last pass left a token not final yet: passes go on until it is answered (a token
  // becomes final by time alone, and only a pass reports it).
  bool pending() const { return waiting_; }
  // The last pass left a token that the next pass can make final by the event rule.
  bool confirm_soon() const { return confirm_soon_; }
  // The last pass left tokens past its window: the next pass has work at once (a comparer
  // catching up runs window after window at its gate, not at the poll).
  bool window_cut() const { return deferred_; }
  // When a time rule can next make a token final (set by the last pass; empty: none pending).
  std::optional<int64_t> next_time_rule_ns() const { return next_time_rule_ns_; }
  // Which raw files of the watched side the watcher holds complete (held back or kept raw): they
  // count as whole for finality. Called during a pass, from the comparer's thread.
  void set_held_check(std::function<bool(const std::string&)> held) { held_ = std::move(held); }
  const std::string& root() const { return root_; }
  const std::string& golden() const { return golden_; }
  size_t cached_rows() const { return rows_.size() + atb_rows_.rows.size(); }
  // Pairs the last ATB/torch pass evaluated (the others came from its row cache).
  size_t atb_evaluated() const { return atb_rows_.evaluated; }
  // Tokens answered while final and dropped from later passes until their files change.
  size_t retired_tokens() const { return retired_.size(); }
  // What the ATB/torch passes keep and what the last one listed (null before the first).
  const AtbLiveState* atb_state() const { return atb_.get(); }

 private:
  // ATB / torch dumps (common/compare_atb): the library compares the trees, less the tokens
  // answered already, and marks the first divergences (with the ops' inputs); each pass runs it
  // again and answers from its api sheet, as `compare --cl api`.
  // Defined in daemon/live_compare_atb.cpp.
  std::vector<DivergenceEvent> pass_atb(int64_t now_ns, std::vector<std::string>& notes,
                                        std::vector<TokenVerdict>* verdicts, std::set<std::string>* indexed);
  // Reports the first divergence of each final token of `rows` (marked) not answered yet; a
  // final token without one is noted once ("judged clean"), so an operator (and a test) can see
  // the stream was judged.
  void answer_final_tokens(const std::vector<ReportRow>& rows, int64_t rank, int64_t now_ns,
                           std::vector<DivergenceEvent>& events, std::vector<std::string>& notes);
  // A pass that could not match: "match: nothing to compare yet" once while nothing pairs,
  // any other reason once per distinct text.
  void note_waiting(const Error& e, std::vector<std::string>& notes);
  // CompareOptions::prune: drops from both trees of `rank` the retired tokens whose files are
  // unchanged (signatures of this pass's whole trees; it forgets the others), the tokens beyond
  // the window (deferred_) and the golden's tokens that mine does not have yet.
  bool narrow_trees(int64_t rank, const std::map<TokenFinality::Key, SideToken>& mine,
                    const std::map<TokenFinality::Key, SideToken>& golden, DumpTree& my, DumpTree& gold);
  void note_verdicts(const std::vector<ReportRow>& rows, const DumpTree& my, int64_t rank, int64_t now_ns,
                     std::vector<TokenVerdict>& out) const;

  std::string root_, golden_, op_mapping_file_;
  TokenFinality finality_;
  // Rows already evaluated, by pair (both path cells and what stands for each side): a pair is
  // evaluated again only when a side changes kind (raw -> summary) or when its row was an error.
  std::map<std::string, ReportRow> rows_;
  atb::AtbRowCache atb_rows_;          // the same, for ATB/torch passes (kept by the ATB library)
  std::set<std::string> done_tokens_;  // rank/token answered (reported or found clean) while final
  std::set<std::string> clean_noted_;  // rank/token noted as judged clean (once per process)
  // The side's files and whether each token's files are whole (see SideToken).
  void side_tokens(const DumpTree& t, int64_t rank, bool golden, int64_t now_ns,
                   std::map<TokenFinality::Key, SideToken>& out);
  // Cost (docs/live-divergence.md "Cost"): a token answered while final is retired with the
  // signatures its files had then (mine, golden); later passes drop it from both trees before
  // reading or matching anything (CompareOptions::prune), and its rows leave the cache. A
  // token whose files change is judged again.
  // The directories of a retired token (both sides) are skipped unlisted by the next indexes
  // while their mtime is the one seen before they were listed (CompareOptions::skip_dir): a
  // file added, removed or summarised (its raw file unlinked) changes it.
  struct Retired {
    SideToken mine, golden;         // what each side showed of it when retired (side_tokens)
    std::vector<std::string> dirs;  // its directories in skip_dirs_ (none: not skippable yet)
  };
  std::map<TokenFinality::Key, Retired> retired_;
  struct SkipEntry {
    int64_t mtime_ns = 0;
    TokenFinality::Key token;
  };
  std::unordered_map<std::string, SkipEntry> skip_dirs_;
  // This pass: each directory's mtime before it was listed, and the retired tokens of which a
  // directory was skipped.
  std::unordered_map<std::string, int64_t> dir_mtimes_;
  std::set<TokenFinality::Key> skipped_;
  // The golden's tokens that mine has not reached (a golden dumped beforehand has them all):
  // their directories, and mine's last token per rank at the last pass. A golden token more
  // than one past it is left unlisted (nothing pairs with it yet; the one after mine's last
  // is listed, so that finality sees the golden has gone on).
  std::unordered_map<std::string, TokenFinality::Key> golden_ahead_dirs_;
  std::map<int64_t, int64_t> my_last_token_;
  // Memory (docs/live-divergence.md "Cost"): the tokens beyond the window are not listed.
  // Every token directory an index has listed, both sides (dir -> token; kSharedDir for a
  // directory holding several tokens, never left unlisted), what each side showed of each
  // token when last listed, and per rank the last token this pass lists: the window's tokens
  // (known from earlier listings) and the one after them. A known token past it is left
  // unlisted on both sides and seen by finality as it was (hidden_: those of this pass).
  static constexpr int64_t kSharedDir = INT64_MIN;
  std::unordered_map<std::string, TokenFinality::Key> token_dirs_;
  std::map<TokenFinality::Key, SideToken> mine_seen_, golden_seen_;
  std::map<int64_t, int64_t> list_until_;
  std::set<TokenFinality::Key> hidden_;
  // Sets list_until_ from mine_seen_ and retired_ (before a pass's index).
  void plan_listing();
  // Records the token directories of a rank's freshly listed trees in token_dirs_.
  void note_token_dirs(int64_t rank, const DumpTree& my, const DumpTree& gold);
  // The directories left unlisted this pass (each with a trailing '/'), for `indexed`.
  std::set<std::string> hidden_dirs_;
  // Makes the directories of retired token k skippable when every one of them was listed this
  // pass and is older than a second (an mtime that recent could still be shared by a later
  // change of the same clock tick).
  void note_skippable(const TokenFinality::Key& k, const DumpTree& my, const DumpTree& gold, int64_t wall_ns);
  void unretire(std::map<TokenFinality::Key, Retired>::iterator it);
  // The flow detected by the first pass that paired files: later passes skip detection (a walk
  // of both trees).
  std::optional<Flow> flow_;
  bool deferred_ = false;  // this pass left tokens beyond its window for a later pass
  std::string last_error_;
  bool waiting_ = false, confirm_soon_ = false;
  std::optional<int64_t> next_time_rule_ns_;
  std::function<bool(const std::string&)> held_;
  // Raw golden files known not written for quiet_ns: path hash -> write time (realtime ns), so
  // that each is stat()ed until then only.
  std::unordered_map<uint64_t, int64_t> golden_written_;
  std::shared_ptr<AtbLiveState> atb_;  // the ATB/torch passes' own state (daemon/live_compare_atb.cpp)
  // Raw golden files younger than token_settle_ns found complete by their header: path hash ->
  // what they were then (a file that changes is read again). Dropped once old enough.
  std::unordered_map<uint64_t, FileIdentity> golden_complete_;
  // A young raw golden dump file is whole when its header declares no more bytes than it has
  // (docs/live-divergence.md "When a token's answer is final").
  bool golden_complete(const std::string& path, uint64_t hash, const struct ::stat& st);
};

// The comparer thread of a running watch: woken when files are summarised, polls while tokens
// are not final, reports through the alert sink.
class LiveComparer {
 public:
  LiveComparer(const LiveSettings& s, DivergenceAlerts& alerts, Logger& log, Finality f = {});
  ~LiveComparer();
  void start();
  void stop();
  // A file under a watched root was summarised (any thread).
  void note_summarised(const std::string& path);
  // The watcher's hold policy (CandidatePolicy::hold; loop thread): with
  // keep_raw_near_divergence > 0, a complete file under a watched root with a golden stays raw
  // until its token's verdict releases it; the files of a diverging op and of the N ops before
  // it stay raw for good. Bounded by held_raw_cap_bytes: beyond it files are not held (logged).
  bool hold(const std::string& path, uint64_t bytes);
  // Files released since the last call (loop thread, after the wake callback).
  std::vector<std::string> take_releases();
  // Called (from the comparer thread) when take_releases() has something.
  void set_wake(std::function<void()> wake) { wake_ = std::move(wake); }
  bool holds_files() const { return keep_n_ > 0; }

 private:
  void run();
  // Applies a pass's verdicts and releases held files the index does not place in a token.
  void settle_holds(size_t root, const std::vector<TokenVerdict>& verdicts, const std::set<std::string>& indexed,
                    int64_t now_ns);
  size_t root_of(const std::string& path) const;  // index into roots_, or roots_.size()
  // Notes a summary (or a held file) under root `root` (under mu_): true when the comparer must
  // be woken, i.e. the root was clean. Later ones only move last_summary_: the comparer, which
  // already waits for the root's gate or its burst's end, reads it when it wakes (one wake per
  // pass, not one per file at 5,000 files/s).
  bool mark_dirty(size_t root);

  std::vector<std::unique_ptr<LiveRootCompare>> roots_;
  std::vector<char> dirty_;            // per root, under mu_
  uint64_t wakes_ = 0;                 // summaries (and held files) noted so far, under mu_
  std::vector<int64_t> last_summary_;  // per root, the last one's time (steady clock), under mu_
  // Held files (under mu_): path -> bytes and when held; kept for good; released, not yet claimed.
  struct Held {
    uint64_t bytes = 0;
    int64_t since_ns = 0;
  };
  std::map<std::string, Held> held_;
  std::set<std::string> kept_, released_;
  std::vector<std::string> releases_;
  uint64_t held_bytes_ = 0;
  bool cap_logged_ = false;
  uint32_t keep_n_ = 0;
  uint64_t cap_bytes_ = 0;
  std::function<void()> wake_;
  DivergenceAlerts& alerts_;
  Logger& log_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::unique_ptr<StageThread> thread_;  // runs run() from start() to stop()
};

}  // namespace msit::daemon
