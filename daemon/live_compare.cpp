// The live comparer (docs/live-divergence.md "How the live comparer decides"): compare's own
// matcher, evaluator and first-divergence post-pass, run pass by pass on a growing dump.
#include "daemon/live_compare.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <limits>
#include <unordered_set>

#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/base/fnv1a.h"
#include "common/base/test_hooks.h"
#include "common/base/unique_fd.h"
#include "common/compare/divergence.h"
#include "common/compare_atb/atb_compare.h"
#include "common/formats/dump_reader.h"
#include "common/io/file.h"
#include "common/report/op_label.h"
#include "common/stats/tensor_stats.h"
#include "common/store/store_catalog.h"
#include "daemon/jobs.h"
#include "daemon/log.h"

// mimalloc's collection (msit-compact links it as the process allocator: cli/CMakeLists.txt);
// weak, so that the daemon library links without it (tests, sanitizer builds): null then.
extern "C" void mi_collect(bool force) __attribute__((weak));

namespace msit::daemon {
namespace {

// The comparer thread's nice value: a CPU share of about a third of a compaction worker's when
// both want the core.
constexpr int kComparerNice = 5;
// The most files of the watched side one pass reads and matches (whole tokens, at least one):
// bounds a pass's memory and time when the comparer falls behind.
constexpr uint64_t kWindowFiles = 1024;
// Young raw golden files remembered as complete by their header (each is dropped once older
// than token_settle_ns; a golden written faster than this per second is read again).
constexpr size_t kMaxCompleteMemo = 65536;

// The later of two write times; unknown when either is.
std::optional<int64_t> latest(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

std::string pair_key(const PairSpec& p) {
  std::string k = p.my_cell;
  k += '\x1f';
  k += p.golden_cell;
  k += '\x1f';
  for (const TensorSlot* s : {&p.my, &p.golden}) {
    k += static_cast<char>('0' + static_cast<int>(s->kind));
    k += static_cast<char>('0' + (s->file ? static_cast<int>(s->file->kind) : 9));
  }
  return k;
}

// A row worth keeping: both sides were read and compared. Problem rows cost nothing to redo, and
// rows with a fail reason may be a side caught mid-write or mid-compaction.
bool cacheable(const PairSpec& p, const ReportRow& r) {
  return !p.problem.any() && r.fail_reason == FailReason::kNone && !r.problem.any();
}

std::string token_tag(int64_t rank, int64_t token) { return std::to_string(rank) + "/" + std::to_string(token); }

}  // namespace

void TokenFinality::observe_side(const std::map<Key, SideToken>& now, Side Seen::*side, Tree& tree,
                                 std::map<Key, Seen>& next, int64_t now_ns) {
  tree.last_token.clear();
  for (const auto& [k, st] : now) {
    auto [it, fresh] = tree.last_token.try_emplace(k.rank, k.token);
    if (!fresh) it->second = std::max(it->second, k.token);
  }
  bool changed = false;
  std::optional<int64_t> written = std::numeric_limits<int64_t>::min();  // no file yet
  for (auto& [k, seen] : next) {
    Side& s = seen.*side;
    auto it = now.find(k);
    SideToken at = it == now.end() ? SideToken{} : it->second;
    if (s.at.sig != at.sig || s.changed_pass == 0) {
      s.changed_ns = now_ns;
      s.changed_pass = pass_;
      changed = changed || s.at.sig != at.sig;
    }
    s.at = at;
    auto last = tree.last_token.find(k.rank);
    bool later = last != tree.last_token.end() && last->second > k.token;
    if (!later) s.later_pass = UINT64_MAX;
    else if (s.later_pass == UINT64_MAX) s.later_pass = pass_;
    if (at.sig != 0) written = latest(written, at.written_ns);
  }
  // A token gone from both sides is gone from `next`: it changed its side's tree too.
  for (const auto& [k, seen] : tokens_)
    if ((seen.*side).at.sig != 0 && !next.count(k)) changed = true;
  if (changed || tree.changed_pass == 0) {
    tree.changed_ns = now_ns;
    tree.changed_pass = pass_;
  }
  tree.written_ns = written;
}

void TokenFinality::observe_sides(const std::map<Key, SideToken>& mine, const std::map<Key, SideToken>& golden,
                                  int64_t now_ns) {
  ++pass_;
  std::map<Key, Seen> next;
  for (const auto* side : {&mine, &golden}) {
    for (const auto& [k, st] : *side) {
      auto [it, fresh] = next.try_emplace(k);
      if (!fresh) continue;
      auto old = tokens_.find(k);
      if (old != tokens_.end()) it->second = old->second;
    }
  }
  observe_side(mine, &Seen::mine, mine_tree_, next, now_ns);
  observe_side(golden, &Seen::golden, golden_tree_, next, now_ns);
  tokens_ = std::move(next);
}

void TokenFinality::observe(const std::map<Key, uint64_t>& mine, const std::map<Key, uint64_t>& golden,
                            int64_t now_ns) {
  auto sides = [](const std::map<Key, uint64_t>& sigs) {
    std::map<Key, SideToken> out;
    for (const auto& [k, s] : sigs) out[k] = SideToken{s, false, std::nullopt};
    return out;
  };
  observe_sides(sides(mine), sides(golden), now_ns);
}

// One side is done with a token when no more files of it can come and those it has are whole:
//  - event: a later token had started on that side in an earlier pass (dumps run token by token:
//    every file of this token was created before it, so this pass's listing, which began after
//    that pass, has them all), the token's files are the same as in the previous pass (a file
//    caught between its raw and its summarised form is seen in one of them), and all are whole;
//  - time: a later token has started and the token's files have not changed for token_settle_ns;
//  - the side's last token: the side's tree has not changed for quiet_ns, or (files whose write
//    times are all known: a golden written before) its files are the same as in the previous
//    pass, whole, and none was written for quiet_ns.
// The watched side has one more event, rule 4 (mine_paired_done).
FinalRule TokenFinality::side_rule(const Side& s, const Tree& t, const Key& k, int64_t now_ns) const {
  if (s.at.sig == 0) return FinalRule::kNone;
  auto last = t.last_token.find(k.rank);
  bool later = last != t.last_token.end() && last->second > k.token;
  if (later && s.at.whole && s.later_pass < pass_ && s.changed_pass < pass_) return FinalRule::kLaterToken;
  if (test_no_time_rules(&t == &golden_tree_)) return FinalRule::kNone;
  if (later && now_ns - s.changed_ns >= f_.token_settle_ns) return FinalRule::kSettled;
  if (now_ns - t.changed_ns >= f_.quiet_ns) return FinalRule::kQuiet;
  if (s.at.whole && t.written_ns && t.changed_pass < pass_ && *t.written_ns <= now_ns - f_.quiet_ns)
    return FinalRule::kQuietWrites;
  return FinalRule::kNone;
}

// Rule 4: the golden side is done with the token, so its files of it are all there is to pair
// with; this pass's matching paired every one of them with a file of the watched side; the
// watched side's files of it are all whole and the same as in the previous pass (the second
// look of rule 1). A file of the watched side that comes later can only pair with nothing
// (compare gives it no row, or a row without metrics, which mark_error_jumps skips) or be a
// second counterpart of a golden file already paired: the rule's one assumption is that the
// model dumps no such file after the last of its token's paired ones (docs/live-divergence.md).
// Rule 6 (ATB/torch) needs no second look: a file caught between its raw and summarised forms
// is missing from this pass's listing or raw in it, and then the token does not show all of
// its previous token's files whole.
bool TokenFinality::mine_paired_done(std::map<Key, Seen>::const_iterator it, int64_t now_ns) const {
  const SideToken& m = it->second.mine.at;
  return m.sig != 0 && m.whole && (paired_twice(it->second.mine) || m.same_files) &&
         golden_rule(it, now_ns) != FinalRule::kNone;
}

// Rule 5: a golden dumped at the same time is done with a token, its last one too, once the
// token shows the same ops as its previous token (per group: GE op names, FX node keys with
// their input and output counts), that previous token is done by rules 1-3 (so it is complete),
// every file is whole and the files are the same as in the previous pass (the second look of
// rule 1). Its assumption (docs/live-divergence.md): a token that has dumped every op of the
// token before it, and nothing else, for two passes is complete: the decode tokens of a run
// execute one graph. A token that runs another graph (prefill, another graph id, an extra op)
// shows another set of ops, is never said done by this rule and waits for rules 1-3. The
// watched side's token must show its own previous token's ops too, a second witness that the
// graph did not change.
bool TokenFinality::golden_shape_done(std::map<Key, Seen>::const_iterator it, int64_t now_ns, bool next_pass) const {
  const Key& k = it->first;
  const Side& g = it->second.golden;
  const Side& m = it->second.mine;
  if (g.at.sig == 0 || g.at.shape == 0 || !g.at.whole || m.at.shape == 0) return false;
  if (!next_pass && g.changed_pass >= pass_) return false;
  for (auto p = std::make_reverse_iterator(it); p != tokens_.rend() && p->first.rank == k.rank; ++p) {
    const Seen& prev = p->second;
    if (prev.golden.at.sig == 0) continue;  // the previous token the golden side has
    return prev.golden.at.shape == g.at.shape && prev.mine.at.shape == m.at.shape &&
           side_rule(prev.golden, golden_tree_, p->first, now_ns) != FinalRule::kNone;
  }
  return false;
}

// Rules 4 and 5 are named only where no other rule holds: a token that a time rule could have
// made final is never said to be final by pairing or by its shape.
FinalRule TokenFinality::golden_rule(std::map<Key, Seen>::const_iterator it, int64_t now_ns) const {
  FinalRule r = side_rule(it->second.golden, golden_tree_, it->first, now_ns);
  if (r == FinalRule::kNone && golden_shape_done(it, now_ns)) r = FinalRule::kSameShape;
  return r;
}

FinalRule TokenFinality::mine_rule(std::map<Key, Seen>::const_iterator it, int64_t now_ns) const {
  FinalRule r = side_rule(it->second.mine, mine_tree_, it->first, now_ns);
  if (r == FinalRule::kNone && mine_paired_done(it, now_ns))
    r = paired_twice(it->second.mine) ? FinalRule::kPaired : FinalRule::kSameFiles;
  return r;
}

std::pair<FinalRule, FinalRule> TokenFinality::rules(const Key& k, int64_t now_ns) const {
  auto it = tokens_.find(k);
  if (it == tokens_.end()) return {FinalRule::kNone, FinalRule::kNone};
  return {mine_rule(it, now_ns), golden_rule(it, now_ns)};
}

bool TokenFinality::is_final(const Key& k, int64_t now_ns) const {
  auto it = tokens_.find(k);
  if (it == tokens_.end()) return false;
  return mine_rule(it, now_ns) != FinalRule::kNone && golden_rule(it, now_ns) != FinalRule::kNone;
}

const char* final_rule_name(FinalRule r) {
  switch (r) {
    case FinalRule::kLaterToken: return "a later token, the same whole files (rule 1)";
    case FinalRule::kSettled: return "a later token, unchanged for 1 s (rule 2)";
    case FinalRule::kQuiet: return "3 s of silence (rule 3)";
    case FinalRule::kQuietWrites: return "its files' write times (rule 3)";
    case FinalRule::kPaired: return "every golden file paired, the same whole files (rule 4)";
    case FinalRule::kSameShape: return "the ops of its previous token, the same whole files (rule 5)";
    case FinalRule::kSameFiles: return "the files of its final previous token, all whole (rule 6)";
    case FinalRule::kNone: break;
  }
  return "not done";
}

bool TokenFinality::any_pending(int64_t now_ns) const {
  for (const auto& [k, s] : tokens_)
    if (!is_final(k, now_ns)) return true;
  return false;
}

std::optional<int64_t> TokenFinality::next_time_rule_ns(int64_t now_ns) const {
  std::optional<int64_t> next;
  auto at = [&](int64_t t) { next = next ? std::min(*next, t) : t; };
  auto side = [&](const Side& s, const Tree& t, const Key& k) {
    if (s.at.sig == 0 || side_done(s, t, k, now_ns)) return;
    auto last = t.last_token.find(k.rank);
    if (last != t.last_token.end() && last->second > k.token) at(s.changed_ns + f_.token_settle_ns);
    at(t.changed_ns + f_.quiet_ns);
    if (s.at.whole && t.written_ns) at(*t.written_ns + f_.quiet_ns);
  };
  for (const auto& [k, s] : tokens_) {
    if (is_final(k, now_ns)) continue;
    side(s.mine, mine_tree_, k);
    side(s.golden, golden_tree_, k);
  }
  return next;
}

bool TokenFinality::final_on_next_pass(int64_t now_ns) const {
  auto soon = [&](const Side& s, const Tree& t, const Key& k) {
    if (side_done(s, t, k, now_ns)) return true;
    auto last = t.last_token.find(k.rank);
    if (s.at.sig != 0 && s.at.whole && t.written_ns && *t.written_ns <= now_ns - f_.quiet_ns)
      return true;  // rule 3 by write times, once the next pass sees the same files
    return s.at.sig != 0 && s.at.whole && last != t.last_token.end() && last->second > k.token;
  };
  // Rule 4: paired and whole now, the same files at the next pass.
  auto paired_soon = [](const Side& s) { return s.at.sig != 0 && s.at.whole && (s.at.paired || s.at.same_files); };
  for (auto it = tokens_.begin(); it != tokens_.end(); ++it) {
    const auto& [k, s] = *it;
    if (is_final(k, now_ns)) continue;
    // Rule 5: the previous token's ops and whole now, the same files at the next pass.
    bool golden = soon(s.golden, golden_tree_, k) || golden_shape_done(it, now_ns, true);
    if ((soon(s.mine, mine_tree_, k) || paired_soon(s.mine)) && golden) return true;
  }
  return false;
}

std::string divergence_id(const std::string& root, int64_t rank, int64_t token, const std::string& op) {
  std::string key = root + '\x1f' + std::to_string(rank) + '\x1f' + std::to_string(token) + '\x1f' + op;
  uint64_t h = fnv1a(key);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf);
}

std::map<int64_t, size_t> first_divergences(const std::vector<ReportRow>& rows) {
  std::map<int64_t, size_t> out;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].jump == ReportRow::Jump::kFirst) out.try_emplace(rows[i].token_id, i);
  return out;
}

DivergenceEvent divergence_event(const ReportRow& r, const std::string& root, const std::string& golden_root) {
  DivergenceEvent e;
  const TensorLabel& l = row_label(r);  // the pair builder's label (common/report/op_label.h)
  e.rank = r.rank;
  e.token = r.token_text.empty() ? std::to_string(r.token_id) : r.token_text;
  e.op = l.known() ? l.op : row_file(r, false);
  e.op_type = l.op_type;
  e.cosine = r.cosine;
  e.red = r.red;
  e.max_abs = r.max_abs;
  e.max_rel = r.max_rel;
  e.mean_abs = r.mean_abs;
  e.kl = r.kl;
  e.error_level = r.error_level.value_or(0.0);
  e.error_jump = r.error_jump.value_or(0.0);
  e.my_path = r.my_data_path;
  e.golden_path = r.golden_data_path;
  e.root = root;
  e.golden_root = golden_root;
  e.id = divergence_id(root, r.rank, r.token_id, e.op);
  return e;
}

std::vector<std::string> files_to_keep(const TokenVerdict& v, uint32_t n) {
  if (!v.diverged || *v.diverged >= v.op_files.size()) return {};
  size_t k = *v.diverged, from = k >= n ? k - n : 0;
  std::vector<std::string> keep;
  for (size_t i = from; i <= k; ++i) {
    keep.push_back(v.op_files[i]);
    auto m = v.op_members.find(v.op_files[i]);
    if (m != v.op_members.end()) keep.insert(keep.end(), m->second.begin(), m->second.end());
  }
  return keep;
}

void LiveRootCompare::note_verdicts(const std::vector<ReportRow>& rows, const DumpTree& my, int64_t rank,
                                    int64_t now_ns, std::vector<TokenVerdict>& out) const {
  std::map<int64_t, TokenVerdict> by_token;
  for (const auto& g : my.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      if (!finality_.is_final({rank, tok}, now_ns)) continue;
      TokenVerdict& v = by_token[tok];
      for (const auto& [op, f] : tf.ge_ops) v.files.push_back(f.raw_path);
      for (const auto& [node, files] : tf.fx_nodes) {
        for (const auto& f : files.inputs) v.files.push_back(f.raw_path);
        for (const auto& f : files.outputs) v.files.push_back(f.raw_path);
      }
    }
  }
  for (const auto& r : rows) {
    auto it = by_token.find(r.token_id);
    if (it == by_token.end() || r.my_data_path.empty()) continue;
    TokenVerdict& v = it->second;
    std::string file = row_file(r, false);
    if (v.op_files.empty() || v.op_files.back() != file) {
      if (std::find(v.op_files.begin(), v.op_files.end(), file) == v.op_files.end()) v.op_files.push_back(file);
    }
    if (r.jump == ReportRow::Jump::kFirst && !v.diverged) {
      v.diverged = static_cast<size_t>(std::find(v.op_files.begin(), v.op_files.end(), file) - v.op_files.begin());
    }
  }
  for (auto& [tok, v] : by_token) out.push_back(std::move(v));
}

void LiveRootCompare::side_tokens(const DumpTree& t, int64_t rank, bool golden, int64_t now_ns,
                                  std::map<TokenFinality::Key, SideToken>& out) {
  const int64_t wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const Finality& f = finality_.limits();
  // Whether the file is whole, and when it was last written on the comparer's clock (if known).
  auto whole = [&](const SourceFile& file, std::optional<int64_t>& written) {
    written.reset();
    // Summaries are written once, whole, after their raw file was complete. Every other kind is
    // a file of the dumper (raw, _min_max, statistics CSV) that may still be being written.
    if (file.kind == SourceKind::kSummary || file.kind == SourceKind::kStored) return true;
    const std::string& path = file.path();
    if (!golden) return held_ && held_(path);
    // A golden file of the dumper: nothing tells when its writer is done but its write time. (Whoever
    // names the golden's files, and could aim at a hash collision here, writes its contents too.)
    uint64_t h = fnv1a(path);
    auto it = golden_written_.find(h);
    int64_t mtime = 0;
    if (it != golden_written_.end()) {
      mtime = it->second;
    } else {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) return false;
      mtime = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
      if (wall_ns - mtime >= f.quiet_ns) golden_written_.emplace(h, mtime);  // settled for good
      if (wall_ns - mtime >= f.token_settle_ns) golden_complete_.erase(h);
      else if (file.kind == SourceKind::kRaw && golden_complete(path, h, st)) {
        written = now_ns - (wall_ns - mtime);
        return true;  // complete by its header: the dumper writes a file front to back, once
      }
    }
    written = now_ns - (wall_ns - mtime);
    return wall_ns - mtime >= f.token_settle_ns;
  };
  auto add = [&](const SourceFile& file, SideToken& st) {
    st.sig += uint64_t{1} << (8 * static_cast<unsigned>(file.kind));  // a file summarised changes it
    st.sig += 1ull << 48;                                             // and so does a new file
    std::optional<int64_t> written;
    bool w = whole(file, written);
    st.whole = st.whole && w;
    st.written_ns = latest(st.written_ns, written);
  };
  // The token's shape (rule 5): which ops it dumped, by names without the parts that differ
  // between tokens (task, stream, timestamp), per group; an order-free sum of their hashes.
  auto shape_of = [](size_t group, std::string_view kind, std::string_view name, size_t ins, size_t outs) {
    std::string key = std::to_string(group);
    key += '\x1f';
    key += kind;
    key += '\x1f';
    key += name;
    key += '\x1f' + std::to_string(ins) + '\x1f' + std::to_string(outs);
    return fnv1a(key);
  };
  for (size_t gi = 0; gi < t.groups.size(); ++gi) {
    for (const auto& [tok, tf] : t.groups[gi].tokens) {
      auto [it, fresh] = out.try_emplace(TokenFinality::Key{rank, tok});
      SideToken& st = it->second;
      if (fresh) {
        st.whole = true;
        st.written_ns = std::numeric_limits<int64_t>::min();  // no file yet
      }
      for (const auto& [op, file] : tf.ge_ops) {
        add(file, st);
        st.shape += shape_of(gi, "ge", op, 0, 1);
      }
      for (const auto& [node, files] : tf.fx_nodes) {
        for (const auto& file : files.inputs) add(file, st);
        for (const auto& file : files.outputs) add(file, st);
        st.shape += shape_of(gi, "fx", node, files.inputs.size(), files.outputs.size());
      }
    }
  }
}

bool LiveRootCompare::golden_complete(const std::string& path, uint64_t hash, const struct ::stat& st) {
  if (!S_ISREG(st.st_mode)) return false;
  const FileIdentity seen = identity_from_stat(st);
  auto it = golden_complete_.find(hash);
  if (it != golden_complete_.end() && it->second.same_content_as(seen)) return true;
  // Read-only, never following a link, regular files only; the header only.
  Result<UniqueFd> fd = open_regular_nofollow(path);
  if (!fd.ok()) return false;
  Result<FileIdentity> id = identity_of(fd->get(), path);
  if (!id.ok() || !id->same_content_as(seen) || !read_dump_header(fd->get(), path, *id).ok()) return false;
  if (golden_complete_.size() >= kMaxCompleteMemo) golden_complete_.clear();  // bounded; re-read if needed
  golden_complete_[hash] = *id;
  return true;
}

namespace {

void token_dirs(const DumpTree& t, int64_t token, std::set<std::string>& out) {
  auto add = [&](const SourceFile& f) {
    size_t slash = f.raw_path.rfind('/');
    if (slash != std::string::npos) out.insert(f.raw_path.substr(0, slash));
  };
  for (const auto& g : t.groups) {
    auto it = g.tokens.find(token);
    if (it == g.tokens.end()) continue;
    for (const auto& [op, f] : it->second.ge_ops) add(f);
    for (const auto& [node, files] : it->second.fx_nodes) {
      for (const auto& f : files.inputs) add(f);
      for (const auto& f : files.outputs) add(f);
    }
  }
}

// Rule 4 of finality (TokenFinality::mine_paired_done): marks the watched side's tokens of
// which this pass's matching paired every golden file (in every group of the rank) with a file
// of the watched side. Pairs with a problem (not paired, unreadable) pair nothing.
void mark_paired(const MatchedRank& mr, std::map<TokenFinality::Key, SideToken>& mine) {
  const int64_t rank = mr.rank.value_or(-1);
  std::map<int64_t, std::unordered_set<const SourceFile*>> paired;
  for (const PairSpec& p : mr.pairs)
    if (!p.problem.any() && p.my.file && p.golden.file) paired[p.token].insert(p.golden.file);
  std::map<int64_t, bool> all;  // token -> every golden file of it paired so far
  for (const auto& g : mr.golden.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      auto pit = paired.find(tok);
      bool ok = pit != paired.end();
      auto check = [&](const SourceFile& f) { ok = ok && pit->second.count(&f) != 0; };
      for (const auto& [op, f] : tf.ge_ops) check(f);
      for (const auto& [node, files] : tf.fx_nodes) {
        for (const auto& f : files.inputs) check(f);
        for (const auto& f : files.outputs) check(f);
      }
      auto [it, fresh] = all.try_emplace(tok, ok);
      if (!fresh) it->second = it->second && ok;
    }
  }
  for (const auto& [tok, ok] : all) {
    auto it = mine.find({rank, tok});
    if (it != mine.end()) it->second.paired = ok;
  }
}

int64_t wall_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

void LiveRootCompare::unretire(std::map<TokenFinality::Key, Retired>::iterator it) {
  for (const auto& d : it->second.dirs) skip_dirs_.erase(d);
  retired_.erase(it);
}

void LiveRootCompare::note_skippable(const TokenFinality::Key& k, const DumpTree& my, const DumpTree& gold,
                                     int64_t wall_ns) {
  auto it = retired_.find(k);
  if (it == retired_.end() || !it->second.dirs.empty()) return;
  std::set<std::string> dirs;
  token_dirs(my, k.token, dirs);
  token_dirs(gold, k.token, dirs);
  // All or none: a token skipped in part would be judged on part of its files. A directory
  // that holds another token too (a flat layout) is never skipped.
  for (const auto& d : dirs) {
    auto m = dir_mtimes_.find(d);
    if (m == dir_mtimes_.end() || wall_ns - m->second < 1'000'000'000 || skip_dirs_.count(d)) return;
  }
  for (const auto& d : dirs) {
    skip_dirs_.emplace(d, SkipEntry{dir_mtimes_[d], k});
    it->second.dirs.push_back(d);
  }
}

bool LiveRootCompare::narrow_trees(int64_t rank, const std::map<TokenFinality::Key, SideToken>& mine,
                                   const std::map<TokenFinality::Key, SideToken>& golden, DumpTree& my,
                                   DumpTree& gold) {
  auto sig = [](const std::map<TokenFinality::Key, SideToken>& m, const TokenFinality::Key& k) {
    auto it = m.find(k);
    return it == m.end() ? uint64_t{0} : it->second.sig;
  };
  int64_t wall = wall_now_ns();
  std::set<int64_t> drop;
  for (auto it = retired_.lower_bound({rank, INT64_MIN}); it != retired_.end() && it->first.rank == rank;) {
    const TokenFinality::Key k = it->first;
    if (!mine.count(k) && !golden.count(k)) {  // every directory of it skipped: unchanged
      ++it;
      continue;
    }
    bool partial = skipped_.count(k) != 0;
    if (!partial && it->second.mine.sig == sig(mine, k) && it->second.golden.sig == sig(golden, k)) {
      drop.insert(k.token);
      note_skippable(k, my, gold, wall);  // listed again, unchanged: perhaps skippable now
      ++it;
      continue;
    }
    auto next = std::next(it);
    unretire(it);  // its files changed: judged again
    it = next;
    if (partial) {  // part of it was skipped: the next pass lists all of it
      drop.insert(k.token);
      deferred_ = true;
    }
  }
  // The window: the oldest tokens of mine not retired, up to kWindowFiles of its files (at
  // least one token). Later tokens wait for a later pass (passes go on while some wait), so a
  // backlog (a comparer slowed down by a busy machine) never costs more memory than a window.
  uint64_t files = 0;
  bool full = false;
  auto until = list_until_.find(rank);
  for (auto it = mine.lower_bound({rank, INT64_MIN}); it != mine.end() && it->first.rank == rank; ++it) {
    if (drop.count(it->first.token)) continue;
    // Past the last token listed: a token after tokens left unlisted waits for them.
    if (until != list_until_.end() && it->first.token > until->second) full = true;
    if (full) {
      drop.insert(it->first.token);
      deferred_ = true;
      continue;
    }
    files += it->second.sig >> 48;  // the signature's file count (side_tokens)
    full = files >= kWindowFiles;
  }
  auto last = mine.lower_bound({rank + 1, INT64_MIN});
  if (last != mine.begin() && std::prev(last)->first.rank == rank) my_last_token_[rank] = std::prev(last)->first.token;
  // Tokens only the golden has yet pair with nothing. Memory (docs/live-divergence.md "Cost"):
  // the first pass that meets the watched side's first tokens lists a golden dumped beforehand
  // whole; dropping them here, before anything is read or evaluated, keeps that index from
  // living alongside the window's summaries and rows.
  bool shared = false, golden_only = false;
  for (const auto& g : gold.groups) {
    for (const auto& [tok, tf] : g.tokens) (mine.count({rank, tok}) ? shared : golden_only) = true;
  }
  if (drop.empty() && skipped_.empty() && hidden_.empty() && !(shared && golden_only))
    return false;  // the trees as compare sees them (and its messages)
  // Not read this pass (nor listed by the next ones while mine is more than a token behind).
  std::set<std::string> ahead;
  for (const auto& g : gold.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      if (mine.count({rank, tok})) continue;
      drop.insert(tok);
      ahead.clear();
      token_dirs(gold, tok, ahead);
      for (const auto& d : ahead) golden_ahead_dirs_.emplace(d, TokenFinality::Key{rank, tok});
    }
  }
  for (DumpTree* t : {&my, &gold})
    for (auto& g : t->groups)
      for (int64_t tok : drop) g.tokens.erase(tok);
  return true;
}

void LiveRootCompare::plan_listing() {
  list_until_.clear();
  // The window of the coming pass as narrow_trees will take it, from what the last listings
  // showed: the oldest tokens not retired, up to kWindowFiles files; the known token after it
  // is the last one listed (finality sees that mine has gone on).
  int64_t rank = 0;
  uint64_t files = 0;
  bool full = false, first = true;
  for (const auto& [k, st] : mine_seen_) {
    if (first || k.rank != rank) {
      rank = k.rank;
      files = 0;
      full = first = false;
    }
    if (list_until_.count(rank) || retired_.count(k)) continue;
    if (full) {
      list_until_[rank] = k.token;
      continue;
    }
    files += st.sig >> 48;  // the signature's file count (side_tokens)
    full = files >= kWindowFiles;
  }
}

void LiveRootCompare::note_token_dirs(int64_t rank, const DumpTree& my, const DumpTree& gold) {
  std::set<std::string> dirs;
  for (const DumpTree* t : {&my, &gold}) {
    for (const auto& g : t->groups) {
      for (const auto& [tok, tf] : g.tokens) {
        dirs.clear();
        token_dirs(*t, tok, dirs);
        for (const auto& d : dirs) {
          auto [it, fresh] = token_dirs_.try_emplace(d, TokenFinality::Key{rank, tok});
          if (!fresh && it->second != TokenFinality::Key{rank, tok}) it->second = {rank, kSharedDir};
        }
      }
    }
  }
}

LiveRootCompare::LiveRootCompare(std::string root, std::string golden, Finality f, std::string op_mapping_file)
    : root_(std::move(root)), golden_(std::move(golden)), op_mapping_file_(std::move(op_mapping_file)), finality_(f) {}

void LiveRootCompare::answer_final_tokens(const std::vector<ReportRow>& rows, int64_t rank, int64_t now_ns,
                                          std::vector<DivergenceEvent>& events, std::vector<std::string>& notes) {
  auto firsts = first_divergences(rows);
  std::set<int64_t> tokens;
  for (const auto& r : rows) tokens.insert(r.token_id);
  for (int64_t tok : tokens) {
    std::string tag = token_tag(rank, tok);
    if (done_tokens_.count(tag) || !finality_.is_final({rank, tok}, now_ns)) continue;
    auto f = firsts.find(tok);
    std::string which = root_ + ": live compare: rank " + (rank < 0 ? std::string("-") : std::to_string(rank)) +
                        ", token " + std::to_string(tok);
    // Which rule made the token final, on each side: an operator (and a test) can tell an
    // answer by event from one that waited for silence.
    auto [mine_rule, golden_rule] = finality_.rules({rank, tok}, now_ns);
    std::string why = std::string("final: watched side done by ") + final_rule_name(mine_rule) + ", golden by " +
                      final_rule_name(golden_rule);
    if (f == firsts.end()) {  // final and clean so far; judged again if it changes
      if (clean_noted_.insert(tag).second) notes.push_back(which + " judged clean (no divergence); " + why);
      continue;
    }
    notes.push_back(which + " " + why);
    events.push_back(divergence_event(rows[f->second], root_, golden_));
    done_tokens_.insert(tag);  // a token has one first divergence: answered once per process
  }
}

void LiveRootCompare::note_waiting(const Error& e, std::vector<std::string>& notes) {
  // Early in a dump (empty or not yet populated dirs) there is nothing to pair: said once, not at
  // every pass as the token lists in the reason change, and again only after a pass has matched.
  bool nothing = e.stage == Stage::kMatch || e.stage == Stage::kTokens || e.stage == Stage::kRanks;
  std::string line = nothing ? std::string("match: nothing to compare yet") : e.to_string();
  if (line != last_error_) {
    notes.push_back(nothing ? root_ + ": live compare: match: nothing to compare yet between " + root_ +
                                  " and its golden " + golden_ + " (" + e.message + "); waiting for files on both sides"
                            : root_ + ": live compare with " + golden_ + " waits: " + line);
  }
  last_error_ = line;
}

std::vector<DivergenceEvent> LiveRootCompare::pass(int64_t now_ns, std::vector<std::string>& notes,
                                                   std::vector<TokenVerdict>* verdicts,
                                                   std::set<std::string>* indexed) {
  // Stores grow while the dump is summarised: each pass lists afresh those that changed (the
  // golden's, usually written once, is listed once). The previous pass's trees (which point
  // into the catalog) are gone by now; the row cache holds only copies.
  store::StoreCatalog::instance().forget_changed();
  if (atb::is_atb_torch_compare(golden_, root_)) return pass_atb(now_ns, notes, verdicts, indexed);
  std::vector<DivergenceEvent> events;
  CompareOptions o;
  o.jobs = 1;  // the comparer's own thread; the workers compact (and skip_dir below is not thread-safe)
  o.eval.stats.sketch_width = kDefaultSketchWidth;
  o.flow = flow_;
  deferred_ = false;
  dir_mtimes_.clear();
  skipped_.clear();
  hidden_.clear();
  hidden_dirs_.clear();
  plan_listing();
  o.skip_dir = [this](const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return false;
    int64_t m = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
    dir_mtimes_[dir] = m;
    if (auto a = golden_ahead_dirs_.find(dir); a != golden_ahead_dirs_.end()) {
      auto last = my_last_token_.find(a->second.rank);
      if (last != my_last_token_.end() && a->second.token > last->second + 1) return true;
    }
    auto it = skip_dirs_.find(dir);
    if (it != skip_dirs_.end() && it->second.mtime_ns == m) {
      skipped_.insert(it->second.token);
      return true;
    }
    // A known token past the window (and the one after it): listed when its window comes.
    auto t = token_dirs_.find(dir);
    if (t == token_dirs_.end() || t->second.token == kSharedDir) return false;
    auto until = list_until_.find(t->second.rank);
    if (until == list_until_.end() || t->second.token <= until->second) return false;
    hidden_.insert(t->second);
    hidden_dirs_.insert(dir + '/');
    deferred_ = true;
    return true;
  };
  // Finality from this pass's whole trees, before any row is judged and before retired tokens
  // are dropped from them.
  std::map<TokenFinality::Key, SideToken> mine, golden;
  o.prune = [&](std::optional<int64_t> rank_opt, DumpTree& my, DumpTree& gold) {
    int64_t rank = rank_opt.value_or(-1);
    side_tokens(my, rank, false, now_ns, mine);
    side_tokens(gold, rank, true, now_ns, golden);
    note_token_dirs(rank, my, gold);
    if (indexed) {
      for (const auto& g : my.groups) {
        for (const auto& [tok, tf] : g.tokens) {
          for (const auto& [op, f] : tf.ge_ops) indexed->insert(f.raw_path);
          for (const auto& [node, files] : tf.fx_nodes) {
            for (const auto& f : files.inputs) indexed->insert(f.raw_path);
            for (const auto& f : files.outputs) indexed->insert(f.raw_path);
          }
        }
      }
    }
    return narrow_trees(rank, mine, golden, my, gold);
  };
  FileCache cache;
  Result<MatchedCompare> m = match_compare(root_, golden_, o, cache);
  if (!m.ok()) {
    note_waiting(m.error(), notes);
    finality_.observe({}, {}, now_ns);
    waiting_ = confirm_soon_ = false;
    next_time_rule_ns_.reset();
    return events;
  }
  last_error_.clear();
  flow_ = m->flow;
  if (indexed) indexed->insert(hidden_dirs_.begin(), hidden_dirs_.end());  // their files are placed
  // A retired token left unlisted is unchanged: finality sees it as it was (not as gone, which
  // would count as a change of the tree).
  for (const auto& [k, r] : retired_) {
    if (mine.count(k) || golden.count(k)) continue;
    mine[k] = r.mine;
    golden[k] = r.golden;
  }
  for (const MatchedRank& mr : m->ranks) mark_paired(mr, mine);
  // So is a token left unlisted past the window, on the side(s) where it was. Not listed, it was
  // not paired by this pass either: rule 4 waits until it is listed again.
  for (const auto& k : hidden_) {
    if (auto s = mine_seen_.find(k); s != mine_seen_.end() && !mine.count(k)) {
      mine[k] = s->second;
      mine[k].paired = false;
    }
    if (auto s = golden_seen_.find(k); s != golden_seen_.end() && !golden.count(k)) golden[k] = s->second;
  }
  mine_seen_ = mine;
  golden_seen_ = golden;
  finality_.observe_sides(mine, golden, now_ns);
  waiting_ = deferred_ || finality_.any_pending(now_ns);
  confirm_soon_ = finality_.final_on_next_pass(now_ns);
  next_time_rule_ns_ = finality_.next_time_rule_ns(now_ns);
  std::map<std::string, ReportRow> kept;
  for (MatchedRank& mr : m->ranks) {
    int64_t rank = mr.rank.value_or(-1);
    // Memory (docs/live-divergence.md "Cost"): one copy of each row. A cached row is moved out
    // of the cache for the post-pass and back after it (mark_error_jumps sets its marks afresh
    // at each pass); keys[i] is row i's cache key, empty for a row not kept.
    std::vector<ReportRow> rows;
    std::vector<std::string> keys;
    rows.reserve(mr.pairs.size());
    keys.reserve(mr.pairs.size());
    for (PairSpec& p : mr.pairs) {
      std::string key = pair_key(p);
      auto hit = rows_.find(key);
      if (hit != rows_.end()) {
        auto node = rows_.extract(hit);
        keys.push_back(std::move(node.key()));
        rows.push_back(std::move(node.mapped()));
        continue;
      }
      ReportRow r = evaluate_pair(p, cache, o.eval);
      r.rank = rank;
      std::string drop = msit_drop_reason(r);
      if (!drop.empty()) r.note = r.note.empty() ? drop : r.note + "; " + drop;
      keys.push_back(cacheable(p, r) ? std::move(key) : std::string());
      rows.push_back(std::move(r));
    }
    // compare's post-pass over the rank's rows in report (= execution) order: O(rows).
    mark_error_jumps(rows);
    answer_final_tokens(rows, rank, now_ns, events, notes);
    if (verdicts) note_verdicts(rows, mr.my, rank, now_ns, *verdicts);
    // Every final token with rows was answered just now (reported, or found clean): retired.
    int64_t wall = wall_now_ns();
    for (const auto& r : rows) {
      TokenFinality::Key k{rank, r.token_id};
      if (retired_.count(k) || !finality_.is_final(k, now_ns)) continue;
      retired_[k] = Retired{mine[k], golden[k], {}};
      note_skippable(k, mr.my, mr.golden, wall);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!keys[i].empty()) kept.emplace(std::move(keys[i]), std::move(rows[i]));
    }
  }
  rows_ = std::move(kept);  // rows of pairs no longer matched are dropped
  return events;
}

LiveComparer::LiveComparer(const LiveSettings& s, DivergenceAlerts& alerts, Logger& log, Finality f)
    : keep_n_(s.keep_raw_near_divergence), cap_bytes_(s.held_raw_cap_bytes), alerts_(alerts), log_(log) {
  for (const auto& g : s.goldens)
    roots_.push_back(
        std::make_unique<LiveRootCompare>(absolute_path(g.root), absolute_path(g.golden), f, s.op_mapping_file));
  dirty_.assign(roots_.size(), 1);
  last_summary_.assign(roots_.size(), 0);
  // Held and kept raw files are complete (the watcher settled them before holding them).
  for (auto& r : roots_)
    r->set_held_check([this](const std::string& path) {
      std::lock_guard<std::mutex> lock(mu_);
      return held_.count(path) != 0 || kept_.count(path) != 0;
    });
}

LiveComparer::~LiveComparer() { stop(); }

void LiveComparer::start() {
  thread_ = std::make_unique<StageThread>();
  thread_->submit([this] {
    run();
    return ok_status();
  });
}

void LiveComparer::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_) (void)thread_->drain();  // run() returns once it sees stop_
  thread_.reset();
}

size_t LiveComparer::root_of(const std::string& path) const {
  for (size_t i = 0; i < roots_.size(); ++i) {
    const std::string& r = roots_[i]->root();
    if (path.size() > r.size() && path.compare(0, r.size(), r) == 0 && path[r.size()] == '/') return i;
  }
  return roots_.size();
}

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

void LiveComparer::settle_holds(size_t root, const std::vector<TokenVerdict>& verdicts,
                                const std::set<std::string>& indexed, int64_t now_ns) {
  // A held file the index has not placed in any token after this long is no dump data of the
  // comparison (another kind of file, another layout): it is released.
  constexpr int64_t kUnplacedNs = 10'000'000'000;
  std::lock_guard<std::mutex> lock(mu_);
  size_t before = releases_.size();
  auto release = [&](const std::string& path) {
    auto it = held_.find(path);
    if (it == held_.end()) return;
    held_bytes_ -= it->second.bytes;
    held_.erase(it);
    released_.insert(path);
    releases_.push_back(path);
  };
  for (const TokenVerdict& v : verdicts) {
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
  std::vector<std::string> unplaced;
  for (const auto& [path, h] : held_)
    if (root_of(path) == root && !indexed.count(path) && !indexed.count(path.substr(0, path.rfind('/') + 1)) &&
        now_ns - h.since_ns >= kUnplacedNs)
      unplaced.push_back(path);
  for (const auto& p : unplaced) release(p);
  if (releases_.size() != before && wake_) wake_();
}

bool LiveComparer::mark_dirty(size_t root) {
  last_summary_[root] = steady_clock().now_ns();
  if (dirty_[root]) return false;
  dirty_[root] = 1;
  ++wakes_;
  return true;
}

void LiveComparer::note_summarised(const std::string& path) {
  bool any = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_.erase(path);
    for (size_t i = 0; i < roots_.size(); ++i) {
      const std::string& r = roots_[i]->root();
      if (path.size() > r.size() && path.compare(0, r.size(), r) == 0 && path[r.size()] == '/') {
        if (mark_dirty(i)) any = true;
      }
    }
  }
  if (any) cv_.notify_all();
}

void LiveComparer::run() {
  // Passes start at least kMinGap apart per root, so a burst of summaries is one pass.
  constexpr auto kMinGap = std::chrono::milliseconds(200);
  constexpr auto kPoll = std::chrono::milliseconds(500);  // while tokens wait to be final
  constexpr auto kIdle = std::chrono::seconds(5);         // the golden may grow unseen
  // Passes that may answer a token at once run before their gate, at most this many in a row
  // (a pass after a pause within a token, the one that sees the token whole, its confirming
  // pass); the rest they skipped is owed after them (docs/live-divergence.md "A pass").
  constexpr int kMaxEarly = 3;
  constexpr auto kBurstQuiet = std::chrono::milliseconds(25);
  auto ns = [](auto d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); };
  struct Schedule {  // per root
    int64_t last_pass = 0, quiet_until = 0;
    int64_t last_start = std::numeric_limits<int64_t>::min() / 2;
    int early = 0;  // passes run before their gate in a row
  };
  std::vector<Schedule> sched(roots_.size());
  auto now_ns = [] { return steady_clock().now_ns(); };
  // A pass re-walks both trees: the comparer rests twice as long as its passes took, so it never
  // takes more than a third of a core from the compaction however large the trees; and passes
  // start at least kMinGap apart.
  auto gate = [&](size_t i) { return std::max(sched[i].quiet_until, sched[i].last_start + ns(kMinGap)); };
  // A pass that can answer a token runs before its gate: the confirming pass of a token one
  // pass from final by an event rule, at once; and the pass after a burst of summaries, once
  // none has come for kBurstQuiet (the end of a token, or of the dump: its last files may have
  // completed a token; a steady stream of summaries keeps to the gate). Under mu_.
  auto early_at = [&](size_t i) -> std::optional<int64_t> {
    if (sched[i].early >= kMaxEarly) return std::nullopt;
    if (roots_[i]->confirm_soon()) return 0;
    if (dirty_[i]) return last_summary_[i] + ns(kBurstQuiet);
    return std::nullopt;
  };
  auto early_ok = [&](size_t i, int64_t now) {
    auto at = early_at(i);
    return at && *at <= now;
  };
  // Off the watcher's critical path (docs/live-divergence.md "Cost"): on a busy machine the
  // compaction workers go first; the comparer only delays alerts. Relative to the daemon's own
  // nice value (a watch started at nice -10 keeps the same ratio). Best effort: this thread
  // only (Linux applies PRIO_PROCESS with a thread id to that thread).
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  int nice_now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) setpriority(PRIO_PROCESS, tid, std::min(nice_now + kComparerNice, 19));
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t seen_wakes = wakes_;
  while (!stop_) {
    for (size_t i = 0; i < roots_.size() && !stop_; ++i) {
      int64_t now = now_ns();
      bool due = dirty_[i] || roots_[i]->pending() || now - sched[i].last_pass >= ns(kIdle);
      bool before_gate = now < gate(i);
      if (!due || (before_gate && !early_ok(i, now))) continue;
      sched[i].early = before_gate ? sched[i].early + 1 : 0;
      int64_t owed = std::max<int64_t>(sched[i].quiet_until - now, 0);  // rest skipped by an early pass
      sched[i].last_start = now;
      dirty_[i] = 0;
      lock.unlock();
      std::vector<std::string> notes;
      std::vector<TokenVerdict> verdicts;
      std::set<std::string> indexed;
      std::vector<DivergenceEvent> events =
          roots_[i]->pass(now, notes, keep_n_ ? &verdicts : nullptr, keep_n_ ? &indexed : nullptr);
      for (const auto& n : notes) log_.info(n);
      // Reported before any evidence is released: an alert never waits for compaction.
      for (const auto& e : events) alerts_.report(e);  // dedupes by id, also across restarts
      if (keep_n_) settle_holds(i, verdicts, indexed, now);
      // A pass builds and drops an index of both trees: give the freed pages back rather than
      // let the daemon keep the largest pass's heap for good.
      ::malloc_trim(0);
      if (mi_collect != nullptr) mi_collect(true);
      sched[i].last_pass = now_ns();
      sched[i].quiet_until = sched[i].last_pass + owed + 2 * (sched[i].last_pass - now);
      lock.lock();
    }
    // When each root's next pass is due: at once for a pass that can answer a token (above);
    // at the gate for a root with new summaries and for the next window of a comparer catching
    // up; for tokens waiting on a time rule, when the rule can fire, and at least every kPoll
    // (the golden may grow unseen); otherwise at kIdle. The first summary under a clean root
    // wakes the comparer to look again (mark_dirty).
    const int64_t now = now_ns();
    int64_t wake_at = now + ns(kIdle);
    for (size_t i = 0; i < roots_.size(); ++i) {
      const LiveRootCompare& r = *roots_[i];
      int64_t at = sched[i].last_pass + ns(kIdle);
      if (dirty_[i] || r.confirm_soon())
        at = std::min(gate(i), early_at(i).value_or(std::numeric_limits<int64_t>::max()));
      else if (r.window_cut() && r.pending())  // pending: a pass is due, so a gate in the past is no spin
        at = gate(i);
      else if (r.pending())
        at = std::max(gate(i),
                      std::min(r.next_time_rule_ns().value_or(std::numeric_limits<int64_t>::max()), now + ns(kPoll)));
      wake_at = std::min(wake_at, at);
    }
    if (wake_at <= now) continue;
    auto wait = std::chrono::nanoseconds(wake_at - now);
    cv_.wait_for(lock, wait, [this, &seen_wakes] { return stop_ || wakes_ != seen_wakes; });
    seen_wakes = wakes_;
  }
}

}  // namespace msit::daemon
