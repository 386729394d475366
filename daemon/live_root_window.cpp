// What a live pass leaves out (docs/live-divergence.md "Cost: what a pass reads"): retired tokens,
// their unchanged directories, the golden's tokens ahead of the dump, the tokens past the window.
#include <iterator>
#include <set>
#include <string>

#include <sys/stat.h>

#include "daemon/live_root_compare.h"
#include "daemon/live_tree_files.h"

namespace msit::daemon {
namespace {

// The most files of the watched side one pass reads and matches (whole tokens, at least one):
// bounds a pass's memory and time when the comparer falls behind.
constexpr uint64_t kWindowFiles = 1024;

void token_dirs(const DumpTree& t, int64_t token, std::set<std::string>& out) {
  for (const auto& g : t.groups) {
    auto it = g.tokens.find(token);
    if (it == g.tokens.end()) continue;
    if (it->second.unread()) {  // a golden token indexed by token and not read (read_golden_near)
      out.insert(it->second.dirs.begin(), it->second.dirs.end());
      continue;
    }
    for_each_token_file(it->second, [&](const SourceFile& f) {
      size_t slash = f.raw_path.rfind('/');
      if (slash != std::string::npos) out.insert(f.raw_path.substr(0, slash));
    });
  }
}

}  // namespace

bool LiveRootCompare::skip_listing(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return false;
  int64_t m = mtime_ns(st);
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
}

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

bool LiveRootCompare::narrow_trees(int64_t rank, const Sides& mine, const Sides& golden, DumpTree& my, DumpTree& gold) {
  std::set<int64_t> drop;
  drop_retired(rank, mine, golden, my, gold, drop);
  drop_past_window(rank, mine, drop);
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
  drop_golden_ahead(rank, mine, gold, drop);
  for (DumpTree* t : {&my, &gold})
    for (auto& g : t->groups)
      for (int64_t tok : drop) g.tokens.erase(tok);
  return true;
}

void LiveRootCompare::drop_retired(int64_t rank, const Sides& mine, const Sides& golden, const DumpTree& my,
                                   const DumpTree& gold, std::set<int64_t>& drop) {
  auto sig = [](const Sides& m, const TokenFinality::Key& k) {
    auto it = m.find(k);
    return it == m.end() ? uint64_t{0} : it->second.sig;
  };
  int64_t wall = wall_now_ns();
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
}

void LiveRootCompare::drop_past_window(int64_t rank, const Sides& mine, std::set<int64_t>& drop) {
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
    files += it->second.file_count();
    full = files >= kWindowFiles;
  }
  auto last = mine.lower_bound({rank + 1, INT64_MIN});
  if (last != mine.begin() && std::prev(last)->first.rank == rank) my_last_token_[rank] = std::prev(last)->first.token;
}

void LiveRootCompare::drop_golden_ahead(int64_t rank, const Sides& mine, const DumpTree& gold,
                                        std::set<int64_t>& drop) {
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
    files += st.file_count();
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

}  // namespace msit::daemon
