// The live comparer (docs/live-divergence.md "How the live comparer decides"): compare's own
// matcher, evaluator and first-divergence post-pass, run pass by pass on a growing dump.
#include "daemon/live_compare.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "common/compare/divergence.h"
#include "common/compare_atb/atb_compare.h"
#include "common/report/op_label.h"
#include "common/stats/tensor_stats.h"
#include "common/store/store_catalog.h"
#include "daemon/jobs.h"
#include "daemon/log.h"

namespace msit::daemon {
namespace {

uint64_t fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;

// What stands for the files of one token: how many of each kind. A file summarised (raw ->
// stored) or a new file changes it.
void add_file(uint64_t& sig, const SourceFile& f) {
  sig += uint64_t{1} << (8 * static_cast<unsigned>(f.kind));
  sig += 1ull << 48;
}

void token_signatures(const DumpTree& t, int64_t rank, std::map<TokenFinality::Key, uint64_t>& out) {
  for (const auto& g : t.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      uint64_t& sig = out[{rank, tok}];
      for (const auto& [op, f] : tf.ge_ops) add_file(sig, f);
      for (const auto& [node, files] : tf.fx_nodes) {
        for (const auto& f : files.inputs) add_file(sig, f);
        for (const auto& f : files.outputs) add_file(sig, f);
      }
    }
  }
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

void TokenFinality::observe(const std::map<Key, uint64_t>& mine, const std::map<Key, uint64_t>& golden,
                            int64_t now_ns) {
  std::map<Key, Seen> next;
  bool changed = false;
  auto seen_at = [&](const Key& k) -> Seen& {
    auto [it, fresh] = next.try_emplace(k);
    if (fresh) {
      auto old = tokens_.find(k);
      if (old != tokens_.end()) it->second = old->second;
      else it->second.changed_ns = now_ns;
    }
    return it->second;
  };
  std::map<Key, std::pair<uint64_t, uint64_t>> sigs;
  for (const auto& [k, s] : mine) sigs[k].first = s;
  for (const auto& [k, s] : golden) sigs[k].second = s;
  for (const auto& [k, s] : sigs) {
    bool known = tokens_.count(k) != 0;
    Seen& seen = seen_at(k);
    if (!known || seen.mine != s.first || seen.golden != s.second) {
      seen.mine = s.first;
      seen.golden = s.second;
      seen.changed_ns = now_ns;
      changed = true;
    }
  }
  if (next.size() != tokens_.size()) changed = true;
  tokens_ = std::move(next);
  my_last_token_.clear();
  golden_last_token_.clear();
  auto note_last = [](std::map<int64_t, int64_t>& last, const Key& k) {
    auto [it, fresh] = last.try_emplace(k.rank, k.token);
    if (!fresh) it->second = std::max(it->second, k.token);
  };
  for (const auto& [k, s] : mine) note_last(my_last_token_, k);
  for (const auto& [k, s] : golden) note_last(golden_last_token_, k);
  if (changed || !observed_) tree_changed_ns_ = now_ns;
  observed_ = true;
}

bool TokenFinality::is_final(const Key& k, int64_t now_ns) const {
  auto it = tokens_.find(k);
  if (it == tokens_.end() || it->second.mine == 0 || it->second.golden == 0) return false;
  if (now_ns - it->second.changed_ns < f_.token_settle_ns) return false;
  // A later token started on both sides: this one is done being written (dumps run token by token).
  auto later = [&](const std::map<int64_t, int64_t>& last) {
    auto l = last.find(k.rank);
    return l != last.end() && l->second > k.token;
  };
  if (later(my_last_token_) && later(golden_last_token_)) return true;
  // The last token: final once neither tree has changed for a while.
  return now_ns - tree_changed_ns_ >= f_.quiet_ns;
}

bool TokenFinality::any_pending(int64_t now_ns) const {
  for (const auto& [k, s] : tokens_)
    if (!is_final(k, now_ns)) return true;
  return false;
}

std::string divergence_id(const std::string& root, int64_t rank, int64_t token, const std::string& op) {
  std::string key = root + '\x1f' + std::to_string(rank) + '\x1f' + std::to_string(token) + '\x1f' + op;
  uint64_t h = fnv1a(kFnvBasis, key);
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
  return {v.op_files.begin() + static_cast<std::ptrdiff_t>(from),
          v.op_files.begin() + static_cast<std::ptrdiff_t>(k + 1)};
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
    if (f == firsts.end()) {  // final and clean so far; judged again if it changes
      if (clean_noted_.insert(tag).second)
        notes.push_back(root_ + ": live compare: rank " + (rank < 0 ? std::string("-") : std::to_string(rank)) +
                        ", token " + std::to_string(tok) + " judged clean (no divergence)");
      continue;
    }
    events.push_back(divergence_event(rows[f->second], root_, golden_));
    done_tokens_.insert(tag);  // a token has one first divergence: answered once per process
  }
}

std::vector<DivergenceEvent> LiveRootCompare::pass_atb(int64_t now_ns, std::vector<std::string>& notes) {
  std::vector<DivergenceEvent> events;
  atb::AtbCompareOptions o;
  o.jobs = 1;
  o.eval.stats.sketch_width = kDefaultSketchWidth;
  if (!op_mapping_file_.empty()) o.op_mapping_dir = op_mapping_file_;
  Result<atb::AtbCompareResult> res = atb::run_atb_compare(golden_, root_, o);
  if (!res.ok() || res->sheets.empty()) {
    std::string line = res.ok() ? "no rows yet" : res.error().to_string();
    if (line != last_error_) notes.push_back(root_ + ": live compare with " + golden_ + " waits: " + line);
    last_error_ = line;
    finality_.observe({}, {}, now_ns);
    waiting_ = false;
    return events;
  }
  last_error_.clear();
  // The api sheet (what `compare --cl api` writes, the finest of the three), else the sheet with
  // the most rows.
  atb::AtbSheet* sheet = &res->sheets.front();
  for (auto& sh : res->sheets)
    if (sh.rows.size() > sheet->rows.size()) sheet = &sh;
  for (auto& sh : res->sheets)
    if (sh.name == "api" && !sh.rows.empty()) sheet = &sh;
  std::vector<ReportRow>& rows = sheet->rows;
  // What each token's rows read: how many, and which sides were read. Both trees feed each row,
  // so one signature stands for both sides.
  std::map<TokenFinality::Key, uint64_t> sig;
  for (const auto& r : rows) {
    uint64_t& s = sig[{-1, r.token_id}];
    s = fnv1a(s == 0 ? kFnvBasis : s, r.my_data_path + '\x1f' + r.golden_data_path + '\x1f' + msit_reason_cell(r));
  }
  finality_.observe(sig, sig, now_ns);
  waiting_ = finality_.any_pending(now_ns);
  for (auto& r : rows) r.rank = -1;
  // The library has run the first-divergence post-pass on each sheet with the ops' inputs (ATB
  // intensors, torch input_k) and dropped those rows: its marks are compare's. Running it again
  // here would take the previous output as each op's input and could name another op.
  answer_final_tokens(rows, -1, now_ns, events, notes);
  return events;
}

std::vector<DivergenceEvent> LiveRootCompare::pass(int64_t now_ns, std::vector<std::string>& notes,
                                                   std::vector<TokenVerdict>* verdicts,
                                                   std::set<std::string>* indexed) {
  // Stores grow while the dump is summarised: each pass lists them afresh. The previous pass's
  // trees (which point into the catalog) are gone by now; the row cache holds only copies.
  store::StoreCatalog::instance().forget_all();
  if (atb::is_atb_torch_compare(golden_, root_)) return pass_atb(now_ns, notes);
  std::vector<DivergenceEvent> events;
  CompareOptions o;
  o.jobs = 1;  // the comparer's own thread; the workers compact
  o.eval.stats.sketch_width = kDefaultSketchWidth;
  FileCache cache;
  Result<MatchedCompare> m = match_compare(root_, golden_, o, cache);
  if (!m.ok()) {
    // Early in a dump there is often nothing to pair yet: said once per distinct reason.
    std::string line = m.error().to_string();
    if (line != last_error_) notes.push_back(root_ + ": live compare with " + golden_ + " waits: " + line);
    last_error_ = line;
    finality_.observe({}, {}, now_ns);
    waiting_ = false;
    return events;
  }
  last_error_.clear();
  // Finality from this pass's trees, before any row is judged.
  std::map<TokenFinality::Key, uint64_t> mine, golden;
  for (const MatchedRank& mr : m->ranks) {
    token_signatures(mr.my, mr.rank.value_or(-1), mine);
    token_signatures(mr.golden, mr.rank.value_or(-1), golden);
    if (indexed) {
      for (const auto& g : mr.my.groups) {
        for (const auto& [tok, tf] : g.tokens) {
          for (const auto& [op, f] : tf.ge_ops) indexed->insert(f.raw_path);
          for (const auto& [node, files] : tf.fx_nodes) {
            for (const auto& f : files.inputs) indexed->insert(f.raw_path);
            for (const auto& f : files.outputs) indexed->insert(f.raw_path);
          }
        }
      }
    }
  }
  finality_.observe(mine, golden, now_ns);
  waiting_ = finality_.any_pending(now_ns);
  std::map<std::string, ReportRow> kept;
  for (MatchedRank& mr : m->ranks) {
    int64_t rank = mr.rank.value_or(-1);
    std::vector<ReportRow> rows;
    rows.reserve(mr.pairs.size());
    for (PairSpec& p : mr.pairs) {
      std::string key = pair_key(p);
      auto hit = rows_.find(key);
      if (hit != rows_.end()) {
        rows.push_back(hit->second);
        kept.insert(rows_.extract(hit));
        continue;
      }
      ReportRow r = evaluate_pair(p, cache, o.eval);
      r.rank = rank;
      std::string drop = msit_drop_reason(r);
      if (!drop.empty()) r.note = r.note.empty() ? drop : r.note + "; " + drop;
      if (cacheable(p, r)) kept.emplace(std::move(key), r);
      rows.push_back(std::move(r));
    }
    // compare's post-pass over the rank's rows in report (= execution) order: O(rows).
    mark_error_jumps(rows);
    answer_final_tokens(rows, rank, now_ns, events, notes);
    if (verdicts) note_verdicts(rows, mr.my, rank, now_ns, *verdicts);
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
}

LiveComparer::~LiveComparer() { stop(); }

void LiveComparer::start() {
  thread_ = std::thread([this] { run(); });
}

void LiveComparer::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
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
  dirty_[root] = 1;  // a held file is not summarised: it wakes the comparer here instead
  cv_.notify_all();
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
    if (root_of(path) == root && !indexed.count(path) && now_ns - h.since_ns >= kUnplacedNs) unplaced.push_back(path);
  for (const auto& p : unplaced) release(p);
  if (releases_.size() != before && wake_) wake_();
}

void LiveComparer::note_summarised(const std::string& path) {
  bool any = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_.erase(path);
    for (size_t i = 0; i < roots_.size(); ++i) {
      const std::string& r = roots_[i]->root();
      if (path.size() > r.size() && path.compare(0, r.size(), r) == 0 && path[r.size()] == '/') {
        dirty_[i] = 1;
        any = true;
      }
    }
  }
  if (any) cv_.notify_all();
}

void LiveComparer::run() {
  // Passes are debounced: at most one per kMinGap per root, so a burst of summaries is one pass.
  constexpr auto kMinGap = std::chrono::milliseconds(200);
  constexpr auto kPoll = std::chrono::milliseconds(500);  // while tokens wait to be final
  constexpr auto kIdle = std::chrono::seconds(5);         // the golden may grow unseen
  std::vector<int64_t> last_pass(roots_.size(), 0), quiet_until(roots_.size(), 0);
  auto now_ns = [] { return steady_clock().now_ns(); };
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    for (size_t i = 0; i < roots_.size() && !stop_; ++i) {
      int64_t now = now_ns();
      bool due = dirty_[i] || roots_[i]->pending() || now - last_pass[i] >= std::chrono::nanoseconds(kIdle).count();
      // A pass re-walks both trees: the comparer rests twice as long as its last pass took, so
      // it never takes more than a third of a core from the compaction however large the trees.
      if (!due || now < quiet_until[i]) continue;
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
      last_pass[i] = now_ns();
      quiet_until[i] = last_pass[i] + 2 * (last_pass[i] - now);
      lock.lock();
    }
    bool pending = false;
    for (auto& r : roots_) pending = pending || r->pending();
    cv_.wait_for(lock, pending ? kPoll : kIdle, [this] {
      if (stop_) return true;
      for (char d : dirty_)
        if (d) return true;
      return false;
    });
    if (!stop_) {
      lock.unlock();
      std::this_thread::sleep_for(kMinGap);  // debounce: gather the rest of a burst
      lock.lock();
    }
  }
}

}  // namespace msit::daemon
