// LiveRootCompare's pass on ATB / torch dumps (docs/live-divergence.md "ATB and torch"): the ATB
// library on the tokens not answered yet, each token's finality from a listing of its directories.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include <sys/stat.h>

#include "daemon/live_compare_atb.h"

#include "common/base/fnv1a.h"
#include "common/compare_atb/atb_compare.h"
#include "common/compare_atb/files.h"
#include "common/compare_atb/side.h"
#include "common/io/derived_names.h"
#include "common/report/op_label.h"
#include "common/stats/tensor_stats.h"
#include "daemon/live_root_compare.h"
#include "daemon/live_tree_files.h"

namespace msit::daemon {
namespace {

namespace fs = std::filesystem;

// A token's number as a directory name or a report key: digits only, at most 18 of them.
std::optional<int64_t> parse_token_number(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  return std::stoll(std::string(s));
}

bool is_token_number(std::string_view s, int64_t token) {
  std::optional<int64_t> n = parse_token_number(s);
  return n && *n == token;
}

// A file of the dump, not one of ours (stores, summaries, temps, claims) nor a hidden file.
bool is_dump_file_name(const std::string& name) {
  return !name.empty() && name[0] != '.' && !is_store_file_name(name) && !derived_name_of(name);
}

// Every dump file under `dir` (symlinks are not followed: a link is no file of the dump), by node.
void list_token_files(const std::string& dir, std::map<std::string, std::vector<std::string>>& by_node) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    std::string name = it->path().filename().string();
    if (!is_dump_file_name(name)) continue;
    std::string path = it->path().string();
    by_node[atb_node_dir(path)].push_back(std::move(path));
  }
}

// A token key's number as the report gives it (atb_compare.cpp: a key that is no number is 0).
int64_t token_number(const std::string& key) { return parse_token_number(key).value_or(0); }

bool stamp_dir(const std::string& dir, DirStamp& s) {
  struct stat sb {};
  if (::lstat(dir.c_str(), &sb) != 0 || !S_ISDIR(sb.st_mode)) return false;
  s.path = dir;
  s.dev = sb.st_dev;
  s.ino = sb.st_ino;
  s.mtime_ns = mtime_ns(sb);
  return true;
}

// Every directory as it was stamped: the same directory (identity), the same mtime.
bool unchanged(const std::vector<DirStamp>& dirs, size_t& checked) {
  for (const auto& d : dirs) {
    ++checked;
    DirStamp now;
    if (!stamp_dir(d.path, now) || now.dev != d.dev || now.ino != d.ino || now.mtime_ns != d.mtime_ns) return false;
  }
  return true;
}

// Every directory's mtime at least a second older than the wall clock: a change within the same
// clock tick as the stamp could leave the mtime as it was.
bool all_older(const std::vector<DirStamp>& dirs, int64_t wall_ns) {
  if (dirs.empty()) return false;
  for (const auto& d : dirs)
    if (wall_ns - d.mtime_ns < 1'000'000'000) return false;
  return true;
}

// One side of one token as a pass lists it: what finality sees of it (TokenFinality), the paths
// of its files below the token directories (its shape) and every directory read.
struct TokenListing {
  SideToken side{0, true, std::numeric_limits<int64_t>::min()};
  std::vector<std::string> rel;
  std::vector<DirStamp> dirs;
};

void add_file(const SourceFile& f, const FileWhole& whole, SideToken& st) {
  std::optional<int64_t> written;
  bool w = whole(f, written);
  st.add_file(f.kind, w, written);
}

// The token's directories: `token_dir` and, where its process directory has rank siblings (msit's
// tensors/ and torch_tensors/, whose files the library concatenates), the same token in each,
// with their parent (a new rank changes it) and each rank directory that lacks the token (its
// token directory appearing changes it). Each directory is stamped before it is read, so a
// change while it is read shows at the next look.
void list_token(const std::string& token_dir, const FileWhole& whole, TokenListing& out, size_t& listed) {
  fs::path tok(token_dir), proc = tok.parent_path(), ranks = proc.parent_path();
  std::vector<std::pair<std::string, std::string>> roots{{token_dir, proc.filename().string()}};  // dir, rank name
  std::string parent = ranks.filename().string();
  if (parent == "tensors" || parent == "torch_tensors") {
    DirStamp s;
    if (stamp_dir(ranks.string(), s)) out.dirs.push_back(s);
    for (const auto& p : atb::list_dirs(ranks.string())) {
      std::string d = (ranks / p / tok.filename()).string();
      if (p == proc.filename().string()) continue;
      if (stamp_dir(d, s)) roots.emplace_back(d, p);
      else if (stamp_dir((ranks / p).string(), s)) out.dirs.push_back(s);  // a rank without the token yet
    }
  }
  for (const auto& [top, rank] : roots) {
    std::vector<std::string> todo{top};
    while (!todo.empty()) {
      std::string d = std::move(todo.back());
      todo.pop_back();
      DirStamp s;
      if (!stamp_dir(d, s)) {  // gone (or replaced) while listed: not whole, listed again
        out.side.whole = false;
        continue;
      }
      out.dirs.push_back(s);
      ++listed;
      std::vector<std::string> subs;
      for (const SourceFile& f : atb::dir_files(d, &subs)) {
        add_file(f, whole, out.side);
        out.rel.push_back(rank + f.raw_path.substr(top.size()));
      }
      for (auto& sub : subs)  // hidden directories are ours or the tools' (as list_dirs has them), no dump data
        if (fs::path(sub).filename().string()[0] != '.') todo.push_back(std::move(sub));
    }
  }
}

void merge_side(SideToken& into, const SideToken& s) {
  if (into.sig == 0) {
    into = s;
    return;
  }
  into.sig += s.sig;
  into.whole = into.whole && s.whole;
  into.written_ns = latest_write(into.written_ns, s.written_ns);
}

// What an ATB/torch pass lists (docs/live-divergence.md "ATB and torch"): each token pair the
// library finds is listed here first (both sides' token directories), unless it is retired and
// none of its directories changed: then the library leaves it out unread and finality sees it
// as it was.
class AtbListing {
 public:
  using Sides = std::map<TokenFinality::Key, SideToken>;
  AtbListing(AtbLiveState& st, FileWhole mine_whole, FileWhole golden_whole, int64_t wall_ns)
      : st_(st), mine_whole_(std::move(mine_whole)), golden_whole_(std::move(golden_whole)), wall_ns_(wall_ns) {}

  // AtbCompareOptions::skip_token: whether the library leaves the token out unread.
  bool skip_token(const std::string& key, const std::string& golden_dir, const std::string& my_dir) {
    int64_t tok = token_number(key);
    bool again = !offered_.insert(tok).second;  // keys the report numbers alike: never left out
    auto r = st_.retired.find(tok);
    if (!again && r != st_.retired.end() && !r->second.dirs.empty() && unchanged(r->second.dirs, st_.dirs_checked)) {
      ++st_.tokens_unlisted;
      unlisted_.insert(tok);
      return true;
    }
    TokenListing lm, lg;
    list_token(my_dir, mine_whole_, lm, st_.dirs_listed);
    list_token(golden_dir, golden_whole_, lg, st_.dirs_listed);
    ++st_.tokens_listed;
    merge_side(mine[{-1, tok}], lm.side);
    merge_side(golden[{-1, tok}], lg.side);
    uint64_t& shape = shapes_.try_emplace(tok, kFnv1aBasis).first->second;
    std::sort(lm.rel.begin(), lm.rel.end());
    for (const auto& p : lm.rel) shape = fnv1a(p + '\x1e', shape);
    auto& d = dirs_[tok];
    d.insert(d.end(), lm.dirs.begin(), lm.dirs.end());
    d.insert(d.end(), lg.dirs.begin(), lg.dirs.end());
    if (again || r == st_.retired.end()) return false;
    if (r->second.mine.sig == lm.side.sig && r->second.golden.sig == lg.side.sig) {
      if (r->second.dirs.empty() && all_older(d, wall_ns_)) r->second.dirs = d;  // skippable from now on
      return true;  // listed again, unchanged: still answered
    }
    st_.retired.erase(r);  // its files changed: judged again
    return false;
  }

  // After the library's run: what finality sees. A retired token no longer found is forgotten;
  // one left unlisted is unchanged: finality sees it as it was (not as gone, which would count
  // as a change of the side's tree). Rule 6: a token showing the very files of the token before
  // it, which was answered final.
  void complete_sides() {
    for (auto it = st_.retired.begin(); it != st_.retired.end();) {
      if (!offered_.count(it->first)) {
        it = st_.retired.erase(it);
        continue;
      }
      if (unlisted_.count(it->first)) {
        mine[{-1, it->first}] = it->second.mine;
        golden[{-1, it->first}] = it->second.golden;
      }
      ++it;
    }
    const TokenFinality::Key* prev = nullptr;
    for (auto& [k, side] : mine) {
      if (prev) {
        auto r = st_.retired.find(prev->token);
        auto s = shapes_.find(k.token);
        side.same_files = r != st_.retired.end() && s != shapes_.end() && r->second.shape == s->second;
      }
      prev = &k;
    }
  }

  // Every final token with rows was answered just now (reported, or found clean): retired.
  void retire_final(const std::vector<ReportRow>& rows, const std::function<bool(int64_t)>& is_final) {
    for (const auto& r : rows) {
      const int64_t tok = r.token_id;
      if (st_.retired.count(tok) || !is_final(tok)) continue;
      AtbLiveState::Retired& ret = st_.retired[tok];
      ret.mine = mine[{-1, tok}];
      ret.golden = golden[{-1, tok}];
      ret.shape = shapes_[tok];
      if (all_older(dirs_[tok], wall_ns_)) ret.dirs = dirs_[tok];
    }
  }

  Sides mine, golden;  // what each side shows of each token listed (or left out) this pass

 private:
  AtbLiveState& st_;
  FileWhole mine_whole_, golden_whole_;
  int64_t wall_ns_;
  std::map<int64_t, uint64_t> shapes_;
  std::map<int64_t, std::vector<DirStamp>> dirs_;
  std::set<int64_t> offered_, unlisted_;
};

// The api sheet (what `compare --cl api` writes, the finest of the three), else the sheet with
// the most rows.
atb::AtbSheet& answer_sheet(atb::AtbCompareResult& res) {
  atb::AtbSheet* sheet = &res.sheets.front();
  for (auto& sh : res.sheets)
    if (sh.rows.size() > sheet->rows.size()) sheet = &sh;
  for (auto& sh : res.sheets)
    if (sh.name == "api" && !sh.rows.empty()) sheet = &sh;
  return *sheet;
}

}  // namespace

std::string atb_node_dir(const std::string& file) {
  fs::path dir = fs::path(file).parent_path();
  std::string name = dir.filename().string();
  if (name == "before" || name == "after") dir = dir.parent_path();
  return dir.string();
}

std::string atb_token_dir(const std::string& root, const std::string& file, int64_t token) {
  if (file.size() <= root.size() || file.compare(0, root.size(), root) != 0 || file[root.size()] != '/') return {};
  size_t at = root.size() + 1;
  while (at < file.size()) {
    size_t slash = file.find('/', at);
    if (slash == std::string::npos) return {};  // the file name itself is no token directory
    if (is_token_number(std::string_view(file).substr(at, slash - at), token)) return file.substr(0, slash);
    at = slash + 1;
  }
  return {};
}

std::vector<TokenVerdict> atb_token_verdicts(const std::string& root, const std::vector<ReportRow>& rows,
                                             const std::function<bool(int64_t)>& is_final,
                                             std::set<std::string>* indexed) {
  // Each token's directories (one per PID_DEVICE on ATB), from the files its rows read.
  std::map<int64_t, std::set<std::string>> dirs;
  for (const auto& r : rows) {
    if (r.my_data_path.empty()) continue;
    std::string d = atb_token_dir(root, row_file(r, false), r.token_id);
    if (!d.empty()) dirs[r.token_id].insert(d);
  }
  std::map<int64_t, TokenVerdict> by_token;
  std::map<int64_t, std::map<std::string, std::vector<std::string>>> nodes;
  for (const auto& [tok, ds] : dirs) {
    bool final = is_final(tok);
    if (!final && !indexed) continue;
    auto& by_node = nodes[tok];
    for (const auto& d : ds) list_token_files(d, by_node);
    for (const auto& [node, files] : by_node) {
      if (indexed) indexed->insert(files.begin(), files.end());
      if (final) by_token[tok].files.insert(by_token[tok].files.end(), files.begin(), files.end());
    }
  }
  // One entry per node, in report order: a node's first row file stands for it.
  std::map<int64_t, std::map<std::string, size_t>> node_index;
  for (const auto& r : rows) {
    auto it = by_token.find(r.token_id);
    if (it == by_token.end() || r.my_data_path.empty()) continue;
    TokenVerdict& v = it->second;
    std::string file = row_file(r, false), node = atb_node_dir(file);
    auto [at, fresh] = node_index[r.token_id].try_emplace(node, v.op_files.size());
    if (fresh) {
      v.op_files.push_back(file);
      std::vector<std::string>& members = v.op_members[file];
      for (const auto& f : nodes[r.token_id][node])
        if (f != file) members.push_back(f);
    }
    if (r.jump == ReportRow::Jump::kFirst && !v.diverged) v.diverged = at->second;
  }
  std::vector<TokenVerdict> out;
  for (auto& [tok, v] : by_token) out.push_back(std::move(v));
  return out;
}

FileWhole LiveRootCompare::atb_file_whole(bool golden, int64_t wall_ns, int64_t now_ns) {
  // Whether a listed file is whole (docs/live-divergence.md "When a token's answer is final",
  // rule 1), and when it was last written on the comparer's clock where known: as side_tokens
  // judges the files of the other flows.
  return [this, golden, wall_ns, now_ns](const SourceFile& f, std::optional<int64_t>& written) {
    written.reset();
    if (f.kind == SourceKind::kSummary || f.kind == SourceKind::kStored) return true;  // written once, whole
    if (!golden) return (f.kind == SourceKind::kRaw && !f.disk_path.empty()) || (held_ && held_(f.path()));
    return golden_file_whole(f, wall_ns, now_ns, false, written);
  };
}

std::vector<DivergenceEvent> LiveRootCompare::pass_atb(int64_t now_ns, std::vector<std::string>& notes,
                                                       std::vector<TokenVerdict>* verdicts,
                                                       std::set<std::string>* indexed) {
  std::vector<DivergenceEvent> events;
  if (!atb_) atb_ = std::make_shared<AtbLiveState>();
  AtbLiveState& st = *atb_;
  st.dirs_listed = st.dirs_checked = st.tokens_listed = st.tokens_unlisted = 0;
  const int64_t wall = wall_now_ns();
  AtbListing listing(st, atb_file_whole(false, wall, now_ns), atb_file_whole(true, wall, now_ns), wall);
  atb::AtbCompareOptions o;
  o.jobs = 1;
  o.eval.stats.sketch_width = kDefaultSketchWidth;
  if (!op_mapping_file_.empty()) o.op_mapping_dir = op_mapping_file_;
  o.row_cache = &atb_rows_;  // only the pairs new since the last pass are read
  o.skip_token = [&listing](const std::string& key, const std::string& golden_dir, const std::string& my_dir) {
    return listing.skip_token(key, golden_dir, my_dir);
  };
  Result<atb::AtbCompareResult> res = atb::run_atb_compare(golden_dir_, my_dir_, o);
  if (!res.ok() || res->sheets.empty()) {
    no_pass(res.ok() ? make_error(root_, Stage::kMatch, "no rows yet") : res.error(), now_ns, notes);
    return events;
  }
  last_error_.clear();
  listing.complete_sides();
  observe_finality(listing.mine, listing.golden, false, now_ns);
  std::vector<ReportRow>& rows = answer_sheet(*res).rows;
  for (auto& r : rows) r.rank = -1;
  // The library has run the first-divergence post-pass on each sheet with the ops' inputs (ATB
  // intensors, torch input_k) and dropped those rows: its marks are compare's. Running it again
  // here would take the previous output as each op's input and could name another op. The rule
  // works token by token, so the tokens left out change no other token's answer.
  answer_final_tokens(rows, -1, now_ns, events, notes);
  auto final = [&](int64_t tok) { return finality_.is_final({-1, tok}, now_ns); };
  if (verdicts) {
    // Every pass, so that a file of a final token written late is decided too (its token is
    // listed again: a directory of it changed).
    for (auto& v : atb_token_verdicts(root_, rows, final, indexed)) verdicts->push_back(std::move(v));
  }
  listing.retire_final(rows, final);
  note_coverage(res->coverage, events);  // tokens of mine without golden, once a later one is answered
  return events;
}

}  // namespace msit::daemon
