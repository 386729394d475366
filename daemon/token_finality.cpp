// TokenFinality: the six finality rules of a live token, events first, time where nothing else
// tells (docs/live-divergence.md "When a token's answer is final").
#include "daemon/token_finality.h"

#include <iterator>
#include <limits>

#include "common/base/test_hooks.h"

namespace msit::daemon {

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
    if (!later_token(tree, k)) s.later_pass = UINT64_MAX;
    else if (s.later_pass == UINT64_MAX) s.later_pass = pass_;
    if (at.sig != 0) written = latest_write(written, at.written_ns);
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
  bool later = later_token(t, k);
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
    if (later_token(t, k)) at(s.changed_ns + f_.token_settle_ns);
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
    if (s.at.sig != 0 && s.at.whole && t.written_ns && *t.written_ns <= now_ns - f_.quiet_ns)
      return true;  // rule 3 by write times, once the next pass sees the same files
    return s.at.sig != 0 && s.at.whole && later_token(t, k);
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

}  // namespace msit::daemon
