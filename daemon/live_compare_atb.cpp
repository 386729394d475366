// The live comparer's pass on ATB / torch dumps (docs/live-divergence.md "ATB and torch"): the
// ATB compare library on both whole trees, answered from its api sheet as `compare --cl api`.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string_view>

#include "daemon/live_compare_atb.h"

#include "common/base/fnv1a.h"
#include "common/compare_atb/atb_compare.h"
#include "common/io/derived_names.h"
#include "common/report/op_label.h"
#include "common/stats/tensor_stats.h"
#include "daemon/live_compare.h"

namespace msit::daemon {
namespace {

namespace fs = std::filesystem;

bool is_token_number(std::string_view s, int64_t token) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return std::stoll(std::string(s)) == token;
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

std::vector<DivergenceEvent> LiveRootCompare::pass_atb(int64_t now_ns, std::vector<std::string>& notes,
                                                       std::vector<TokenVerdict>* verdicts,
                                                       std::set<std::string>* indexed) {
  std::vector<DivergenceEvent> events;
  atb::AtbCompareOptions o;
  o.jobs = 1;
  o.eval.stats.sketch_width = kDefaultSketchWidth;
  if (!op_mapping_file_.empty()) o.op_mapping_dir = op_mapping_file_;
  o.row_cache = &atb_rows_;  // only the pairs new since the last pass are read
  Result<atb::AtbCompareResult> res = atb::run_atb_compare(golden_, root_, o);
  if (!res.ok() || res->sheets.empty()) {
    note_waiting(res.ok() ? make_error(root_, Stage::kMatch, "no rows yet") : res.error(), notes);
    finality_.observe({}, {}, now_ns);
    waiting_ = confirm_soon_ = false;
    next_time_rule_ns_.reset();
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
  // A token's signature changes when any of its rows reads other files or fails otherwise.
  for (const auto& r : rows) {
    uint64_t& s = sig.try_emplace({-1, r.token_id}, kFnv1aBasis).first->second;
    s = fnv1a(r.my_data_path + '\x1f' + r.golden_data_path + '\x1f' + msit_reason_cell(r) + '\x1e', s);
  }
  finality_.observe(sig, sig, now_ns);
  waiting_ = finality_.any_pending(now_ns);
  confirm_soon_ = false;  // ATB rows tell nothing of whole files: the time rules decide
  next_time_rule_ns_ = finality_.next_time_rule_ns(now_ns);
  for (auto& r : rows) r.rank = -1;
  // The library has run the first-divergence post-pass on each sheet with the ops' inputs (ATB
  // intensors, torch input_k) and dropped those rows: its marks are compare's. Running it again
  // here would take the previous output as each op's input and could name another op.
  answer_final_tokens(rows, -1, now_ns, events, notes);
  if (verdicts) {
    // Every pass, so that a file of a final token written late is decided too.
    auto final = [&](int64_t tok) { return finality_.is_final({-1, tok}, now_ns); };
    for (auto& v : atb_token_verdicts(root_, rows, final, indexed)) verdicts->push_back(std::move(v));
  }
  return events;
}

}  // namespace msit::daemon
