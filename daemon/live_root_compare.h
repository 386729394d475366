// LiveRootCompare: one watched root and its golden, compared pass by pass with compare's own
// library (docs/live-divergence.md "A pass", "Cost: what a pass reads", "ATB and torch").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "common/compare/compare.h"
#include "common/compare/recompute.h"
#include "common/compare_atb/atb_compare.h"
#include "common/io/file.h"
#include "common/report/report_row.h"
#include "daemon/divergence_alerts.h"
#include "daemon/token_finality.h"
#include "daemon/token_verdict.h"

namespace msit {
struct MsRankPair;  // common/compare_msprobe/pairs.h
}  // namespace msit

namespace msit::daemon {

struct AtbLiveState;  // daemon/live_compare_atb.h
struct MsStepDir;     // daemon/live_compare_msprobe.cpp

// Whether a listed file is whole, and (`written`) when it was last written on the comparer's
// clock, if known.
using FileWhole = std::function<bool(const SourceFile& file, std::optional<int64_t>& written)>;

// What a token judged clean adds to its log line when tensors of it had no golden partner
// ("; 2 of my 40 tensors not compared (no golden counterpart)"), "" when none.
std::string not_compared_text(const RankCoverage& c);

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
  // Lines of the last passes worth a warning rather than a note (a refusal waiting cannot end),
  // handed over once.
  std::vector<std::string> take_warnings() { return std::exchange(warnings_, {}); }
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
  // watch --recompute: each event's op and the ops before it recomputed (opcheck) from their raw
  // files, which the watcher holds until the token's verdict; nullopt: not asked for.
  void set_recompute(std::optional<RecomputeOptions> o) { recompute_ = o; }
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
  using Sides = std::map<TokenFinality::Key, SideToken>;  // what one side shows of each token

  // A pass (daemon/live_root_compare.cpp).
  // CompareOptions::prune for one rank: the golden's tokens near mine read (read_golden_near),
  // what each side shows of its tokens (before anything is dropped), its token directories, the
  // watched side's files for `indexed`; then narrow_trees, and the golden's tokens still unread
  // dropped.
  bool prune_rank(int64_t rank, DumpTree& my, DumpTree& gold, int64_t now_ns, Sides& mine, Sides& golden,
                  std::set<std::string>* indexed);
  // What finality sees of this pass beyond its listing: the retired tokens left unlisted and the
  // tokens left unlisted past the window as they were, and rule 4's pairing of each token.
  void complete_sides(const MatchedCompare& m, Sides& mine, Sides& golden) const;
  // Feeds this pass's sides to finality and sets what the scheduler asks of the last pass
  // (pending(), confirm_soon(), next_time_rule_ns()); `window_cut`: the pass left tokens past
  // its window (pending too).
  void observe_finality(const Sides& mine, const Sides& golden, bool window_cut, int64_t now_ns);
  // A pass that matched nothing: noted (note_waiting), and no token is pending.
  void no_pass(const Error& e, int64_t now_ns, std::vector<std::string>& notes);
  // The rows of a rank's pairs, in report order: cached rows moved out of rows_, the others
  // evaluated; keys[i] is row i's cache key, empty for a row not to keep.
  std::vector<ReportRow> rank_rows(MatchedRank& mr, FileCache& cache, const EvalOptions& eval,
                                   std::vector<std::string>& keys);
  // Reports the first divergence of each final token of `rows` (marked) not answered yet; a
  // final token without one is noted once ("judged clean"), so an operator (and a test) can see
  // the stream was judged.
  void answer_final_tokens(const std::vector<ReportRow>& rows, int64_t rank, int64_t now_ns,
                           std::vector<DivergenceEvent>& events, std::vector<std::string>& notes);
  // Retires every final token of `rows` (each was just answered: reported, or found clean).
  void retire_final_tokens(const std::vector<ReportRow>& rows, const MatchedRank& mr, Sides& mine, Sides& golden,
                           int64_t now_ns);
  // A pass that could not match: "match: nothing to compare yet" once while nothing pairs,
  // any other reason once per distinct text; a refusal that names the command to type (the
  // resolver's: a parent of dumps, two dumps to choose from) once per text as a warning too.
  void note_waiting(const Error& e, std::vector<std::string>& notes);
  // Coverage (docs/live-divergence.md "Coverage"): a rank of the watched dump without golden
  // counterpart once a token of a paired rank is answered, a token of mine without golden once
  // a later token of its rank is answered; one kNotCompared event each.
  void note_coverage(const Coverage& c, std::vector<DivergenceEvent>& events);
  // The same for msProbe (daemon/live_compare_msprobe.cpp): the plan's steps of mine without
  // golden, asked of each rank answered.
  void note_msprobe_coverage(const Coverage& c, std::vector<DivergenceEvent>& events);
  // Tensors of mine without golden partner in a final token just answered (counted by
  // RankCoverage, compare's rule): one kNotCompared event per rank and token, none when every
  // tensor had its partner. `token_text` is the token as the token's events name it, `label`
  // as the log says it ("token 3", "step 0").
  void note_token_gaps(int64_t rank, int64_t token, const std::string& token_text, const std::string& label,
                       const RankCoverage& c, std::vector<DivergenceEvent>& events);
  // One kNotCompared event, made once per process (the alerts drop it after a restart by its
  // id): `what` was not compared; `id_part` tells it from the rank's and token's other gaps.
  void gap_event(int64_t rank, std::optional<int64_t> token, std::string token_text, const std::string& what,
                 const std::string& id_part, std::vector<DivergenceEvent>& events);
  void note_verdicts(const std::vector<ReportRow>& rows, const DumpTree& my, int64_t rank, int64_t now_ns,
                     std::vector<TokenVerdict>& out) const;

  // ATB / torch dumps (common/compare_atb): the library compares the trees, less the tokens
  // answered already, and marks the first divergences (with the ops' inputs); each pass runs it
  // again and answers from its api sheet, as `compare --cl api`.
  // Defined in daemon/live_compare_atb.cpp.
  std::vector<DivergenceEvent> pass_atb(int64_t now_ns, std::vector<std::string>& notes,
                                        std::vector<TokenVerdict>* verdicts, std::set<std::string>* indexed);
  // msProbe dumps (common/compare_msprobe): a token is a step, a rank its rank folder; a step is
  // compared once final on both sides (its dump.json unchanged while a later step exists, or the
  // tree quiet), through the stores where the watcher compacted it.
  // Defined in daemon/live_compare_msprobe.cpp, as the two below.
  std::vector<DivergenceEvent> pass_msprobe(int64_t now_ns, std::vector<std::string>& notes,
                                            std::vector<TokenVerdict>* verdicts, std::set<std::string>* indexed);
  // What each side shows of its steps (every rank folder, with its dump.json or without it yet),
  // and into `indexed` (may be null) the watched side's tensor folders.
  // `steps`: the step folders the pass listed (null: every step folder below the roots).
  void msprobe_sides(const std::vector<MsRankPair>& pairs, const std::vector<MsStepDir>* steps, Sides& mine,
                     Sides& golden, std::set<std::string>* indexed) const;
  // Compares a final step of a rank and answers it: into `events` its event if it diverges and
  // its APIs without bench partner (note_token_gaps), its verdict for `verdicts` (may be null);
  // nothing yet while its dump.json or tensor files do not read.
  void answer_step(const TokenFinality::Key& k, const MsRankPair& p, const std::string& tag, int64_t now_ns,
                   std::vector<std::string>& notes, std::vector<TokenVerdict>* verdicts,
                   std::vector<DivergenceEvent>& events);
  // Whether a file an ATB/torch pass lists is whole: a summary or stored file; on the watched
  // side, a raw file listed with its file on disk or one the watcher holds; on the golden's, by
  // golden_file_whole (by its write time only).
  FileWhole atb_file_whole(bool golden, int64_t wall_ns, int64_t now_ns);

  // What each side shows of its tokens (daemon/live_root_sides.cpp).
  // The side's files and whether each token's files are whole (see SideToken).
  void side_tokens(const DumpTree& t, int64_t rank, bool golden, int64_t now_ns, Sides& out);
  // Whether a raw file of the golden's dumper is whole: nothing tells when its writer is done but
  // its write time, or (`by_header`, young GE dump files) its header; `written` receives its
  // write time on the comparer's clock. Also used by the ATB/torch passes.
  bool golden_file_whole(const SourceFile& file, int64_t wall_ns, int64_t now_ns, bool by_header,
                         std::optional<int64_t>& written);
  // A young raw golden dump file is whole when its header declares no more bytes than it has
  // (docs/live-divergence.md "When a token's answer is final").
  bool golden_complete(const std::string& path, uint64_t hash, const struct ::stat& st);
  // Rule 4 of finality (TokenFinality::mine_paired_done): marks the watched side's tokens of
  // which this pass's matching paired every golden file (in every group of the rank) with a
  // file of the watched side. Pairs with a problem (not paired, unreadable) pair nothing.
  static void mark_paired(const MatchedRank& mr, Sides& mine);

  // What a pass leaves out (daemon/live_root_window.cpp, docs/live-divergence.md "Cost").
  // CompareOptions::skip_dir: whether the indexes leave `dir` unlisted this pass (a golden token
  // far ahead of mine, an unchanged directory of a retired token, a known token past the window).
  bool skip_listing(const std::string& dir);
  // CompareOptions::prune: drops from both trees of `rank` the retired tokens whose files are
  // unchanged (signatures of this pass's whole trees; it forgets the others), the tokens beyond
  // the window (deferred_) and the golden's tokens that mine does not have yet.
  bool narrow_trees(int64_t rank, const Sides& mine, const Sides& golden, DumpTree& my, DumpTree& gold);
  // narrow_trees' steps: the retired tokens (unchanged: dropped; changed: judged again), the
  // window of mine, and the golden's tokens that mine does not have.
  void drop_retired(int64_t rank, const Sides& mine, const Sides& golden, const DumpTree& my, const DumpTree& gold,
                    std::set<int64_t>& drop);
  void drop_past_window(int64_t rank, const Sides& mine, std::set<int64_t>& drop);
  void drop_golden_ahead(int64_t rank, const Sides& mine, const DumpTree& gold, std::set<int64_t>& drop);
  // The golden is indexed by token (CompareOptions::golden_depth; docs/live-divergence.md
  // "Cost"): reads the files of its tokens up to the one after mine's last (and its first token
  // after mine's last, so that a golden ahead never looks empty); the others stay unread.
  static void read_golden_near(const DumpTree& my, DumpTree& gold);
  // Sets list_until_ from mine_seen_ and retired_ (before a pass's index).
  void plan_listing();
  // Records the token directories of a rank's freshly listed trees in token_dirs_.
  void note_token_dirs(int64_t rank, const DumpTree& my, const DumpTree& gold);
  // Makes the directories of retired token k skippable when every one of them was listed this
  // pass and is older than a second (an mtime that recent could still be shared by a later
  // change of the same clock tick).
  void note_skippable(const TokenFinality::Key& k, const DumpTree& my, const DumpTree& gold, int64_t wall_ns);

  // What the root and the golden given hold (common/resolve/resolve.h): asked again before each
  // pass until a pass pairs, so that a dump_path whose msit_ge_dump appears later, or a golden's
  // dump_path holding msit_fx_dump, are compared as their roots (docs/live-divergence.md
  // "What the root and the golden may be"). False: nothing to compare yet (noted once).
  bool resolve_sides(int64_t now_ns, std::vector<std::string>& notes);

  std::string root_, golden_, op_mapping_file_;
  std::optional<RecomputeOptions> recompute_;
  std::string my_dir_, golden_dir_;      // the resolved roots each pass reads (root_, golden_ at first)
  std::optional<int64_t> rank_, token_;  // a rank or token folder given
  std::string paired_line_;              // the resolver's line last logged
  TokenFinality finality_;
  // Rows already evaluated, by pair (both path cells and what stands for each side): a pair is
  // evaluated again only when a side changes kind (raw -> summary) or when its row was an error.
  std::map<std::string, ReportRow> rows_;
  atb::AtbRowCache atb_rows_;                  // the same, for ATB/torch passes (kept by the ATB library)
  std::set<std::string> done_tokens_;          // rank/token answered (reported or found clean) while final
  std::set<std::string> clean_noted_;          // rank/token noted as judged clean (once per process)
  std::map<int64_t, int64_t> answered_until_;  // per rank, the last token found final and answered
  std::set<std::string> gaps_reported_;        // ids of the kNotCompared events made (once per process)
  // msProbe: rank/step -> when its compare first found a tensor pair unreadable (answered anyway
  // after a grace period, daemon/live_compare_msprobe.cpp).
  std::map<std::string, int64_t> unreadable_since_;
  // msProbe: the watched step folders whose every rank was answered -> the modification times of
  // that folder and of the golden's then; not listed again while both stay (live_compare_msprobe.cpp).
  std::map<std::string, std::pair<int64_t, int64_t>> ms_retired_steps_;
  // msProbe: the resolver's lines already logged (one per step folder paired, or per root pair).
  std::set<std::string> ms_paired_lines_;
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
  void unretire(std::map<TokenFinality::Key, Retired>::iterator it);
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
  Sides mine_seen_, golden_seen_;
  std::map<int64_t, int64_t> list_until_;
  std::set<TokenFinality::Key> hidden_;
  // The directories left unlisted this pass (each with a trailing '/'), for `indexed`.
  std::set<std::string> hidden_dirs_;
  // The flow detected by the first pass that paired files: later passes skip detection (a walk
  // of both trees).
  std::optional<Flow> flow_;
  bool deferred_ = false;  // this pass left tokens beyond its window for a later pass
  std::string last_error_;
  std::string last_refusal_;
  std::vector<std::string> warnings_;
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
};

}  // namespace msit::daemon
