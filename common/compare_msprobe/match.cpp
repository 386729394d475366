// msProbe's matching rules (docs/formats/msprobe-compare.md §3).
#include "common/compare_msprobe/match.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace msit {
namespace {

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

std::string join_dots(const std::vector<std::string>& parts, size_t end) {
  std::string out;
  for (size_t i = 0; i < end; ++i) {
    if (i) out += '.';
    out += parts[i];
  }
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

// Backward entries are renumbered by their order among backward entries of the same op, so a
// recomputed forward does not shift every backward counter (msProbe's update_backward_call).
// `Rows`: a vector of MsprobeItem or an MsItemStore (rows[i] an item, or one unpacked).
template <class Rows>
std::vector<std::string> renumbered_keys(const Rows& rows) {
  std::vector<std::string> keys;
  keys.reserve(rows.size());
  std::unordered_map<std::string, uint64_t> backward_seen;
  std::string last_entry;
  bool first = true;
  std::string new_call_dir;
  MsEntryParts parts;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (first || last_entry != row.entry) {
      first = false;
      last_entry = row.entry;
      parts = ms_entry_parts(row.entry);
      new_call_dir.clear();
      if (parts.direction == MsDirection::kBackward) {
        uint64_t n = backward_seen[parts.op]++;
        size_t dot = parts.call_dir.rfind('.');
        std::string head = parts.call_dir.substr(0, dot), tail = parts.call_dir.substr(dot + 1);
        bool head_num = all_digits(head), tail_num = all_digits(tail);
        if (head_num) head = std::to_string(n);
        if (tail_num) tail = std::to_string(n);
        if (head_num || tail_num) new_call_dir = head + "." + tail;
      }
    }
    if (new_call_dir.empty()) {
      keys.push_back(row.name);
    } else {
      keys.push_back(parts.op + "." + new_call_dir + replace_all(row.name, row.entry, ""));
    }
  }
  return keys;
}

// The first ".{word}." of `words` in `s`, or npos. (Plain searches: GCC 12's <regex> trips
// -Werror=maybe-uninitialized in the sanitizer build.)
size_t first_dotted(const std::string& s, std::initializer_list<std::string_view> words) {
  size_t best = std::string::npos;
  for (std::string_view w : words) {
    const std::string needle = "." + std::string(w) + ".";
    best = std::min(best, s.find(needle));
  }
  return best;
}

bool is_grad_or_directed(const std::string& name) {
  auto parts = split_dots(name);
  return std::find(parts.begin(), parts.end(), "parameters_grad") != parts.end() ||
         first_dotted(name, {"forward", "backward"}) != std::string::npos;
}

// -cm: a Cell row's key is its Module spelling, with the cell path mapped.
std::string cell_mapped_key(const std::string& name, const MsMatchOptions& o) {
  if (name.empty() || !is_grad_or_directed(name)) return "N/A";
  std::string key = name;
  if (size_t at = key.find("Cell"); at != std::string::npos) key.replace(at, 4, "Module");
  if (o.cell_mapping.empty()) return key;
  size_t first_dot = key.find('.');
  std::string after = first_dot == std::string::npos ? key : key.substr(first_dot + 1);
  const size_t split = first_dotted(after, {"forward", "backward", "parameters_grad"});
  std::string cell = split != std::string::npos ? after.substr(0, split) : after;
  std::string mapped = cell;
  if (auto it = o.cell_mapping.find(cell); it != o.cell_mapping.end()) {
    mapped = it->second;
  } else {
    for (const auto& [target, golden] : o.cell_mapping) {
      if (size_t at = mapped.find(target); at != std::string::npos) mapped.replace(at, target.size(), golden);
    }
  }
  if (mapped != cell) {
    if (size_t at = key.find(cell); at != std::string::npos) key.replace(at, cell.size(), mapped);
  }
  return key;
}

template <class Rows>
std::vector<std::string> names_of(const Rows& rows) {
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) out.push_back(rows[i].name);
  return out;
}

template <class Rows>
std::vector<std::string> npu_keys(const Rows& rows, const MsMatchOptions& o) {
  // msProbe names the NPU key by -am, then -cm, then -dm, whatever -fm says; -fm only changes
  // how keys are paired, and a data mapping pairs exactly.
  if (o.fuzzy && !o.cell_mapping_on && o.data_mapping.empty()) return names_of(rows);
  if (!o.cell_mapping_on && o.data_mapping.empty()) return o.msprobe8 ? names_of(rows) : renumbered_keys(rows);
  std::vector<std::string> keys;
  keys.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (o.cell_mapping_on) {
      keys.push_back(cell_mapped_key(r.name, o));
    } else {
      auto it = o.data_mapping.find(r.name);
      keys.push_back(it == o.data_mapping.end() ? r.name : it->second);
    }
  }
  return keys;
}

std::vector<MsPair> exact_pairs(const std::vector<std::string>& nk, const std::vector<std::string>& bk) {
  std::unordered_map<std::string_view, std::vector<size_t>> by_key;
  for (size_t j = 0; j < bk.size(); ++j) by_key[bk[j]].push_back(j);
  std::vector<MsPair> out;
  out.reserve(nk.size());
  for (size_t i = 0; i < nk.size(); ++i) {
    auto it = by_key.find(nk[i]);
    if (it == by_key.end()) {
      out.push_back({i, std::nullopt});
      continue;
    }
    for (size_t j : it->second) out.push_back({i, j});
  }
  return out;
}

// -fm: both sides walked in step; a row waits in its queue until a later row of the other side
// has its key, and NPU rows passed over are unmatched (msProbe's process_fuzzy_match). `nf`,
// `bf`: the fuzzy keys (ms_fuzzy_key).
std::vector<MsPair> fuzzy_pairs(const std::vector<std::string>& nf, const std::vector<std::string>& bf) {
  std::vector<size_t> nq, bq;
  std::vector<MsPair> out;
  size_t longest = std::max(nf.size(), bf.size());
  for (size_t i = 0; i < longest; ++i) {
    if (i < nf.size()) nq.push_back(i);
    if (i < bf.size()) bq.push_back(i);
    if (nq.empty() != bq.empty()) break;
    long np = -1, bp = -1;
    for (size_t b = 0; b + 1 < bq.size() && np < 0; ++b) {
      if (nf[nq.back()] == bf[bq[b]]) np = long(nq.size()) - 1, bp = long(b);
    }
    if (np < 0 && nf[nq.back()] == bf[bq.back()]) np = long(nq.size()) - 1, bp = long(bq.size()) - 1;
    for (size_t n = 0; n + 1 < nq.size() && np < 0; ++n) {
      if (nf[nq[n]] == bf[bq.back()]) np = long(n), bp = long(bq.size()) - 1;
    }
    if (np < 0) continue;
    for (long n = 0; n < np; ++n) out.push_back({nq[size_t(n)], std::nullopt});
    out.push_back({nq[size_t(np)], bq[size_t(bp)]});
    nq.erase(nq.begin(), nq.begin() + np + 1);
    bq.erase(bq.begin(), bq.begin() + bp + 1);
  }
  for (size_t n : nq) out.push_back({n, std::nullopt});
  return out;
}

}  // namespace

MsEntryParts ms_entry_parts(const std::string& entry) {
  auto parts = split_dots(entry);
  const std::string& last = parts.back();
  const std::string second = parts.size() >= 2 ? parts[parts.size() - 2] : std::string();
  if (last == "parameters_grad" || second == "parameters_grad") {
    return {parts.size() > 1 ? join_dots(parts, parts.size() - 1) : "", "parameters_grad",
            MsDirection::kParametersGrad};
  }
  for (auto [word, dir] : {std::pair{"forward", MsDirection::kForward}, {"backward", MsDirection::kBackward}}) {
    if (last == word || second == word) {
      if (parts.size() <= 2) return {};
      return {join_dots(parts, parts.size() - 2), second + "." + last, dir};
    }
  }
  return {};
}

std::string ms_fuzzy_key(const std::string& name) {
  std::string_view word;
  if (name.find("forward") != std::string::npos) {
    word = "forward";
  } else if (name.find("backward") != std::string::npos) {
    word = "backward";
  } else {
    return name;
  }
  size_t at = name.find(word);
  size_t next = name.find(word, at + word.size());
  std::string before = name.substr(0, at);
  std::string in_out =
      name.substr(at + word.size(), next == std::string::npos ? std::string::npos : next - at - word.size());
  // Python's rsplit('.', 2)[0]: drop the text after the second-last dot.
  size_t cut = before.size();
  for (int k = 0; k < 2 && cut != std::string::npos; ++k) {
    cut = cut == 0 ? std::string::npos : before.rfind('.', cut - 1);
  }
  std::string func = cut == std::string::npos ? before : before.substr(0, cut);
  return func + "." + std::string(word) + in_out;
}

bool ms_dtypes_match(const std::string& npu, const std::string& bench, bool cross_frame) {
  auto fold = [&](const std::string& d) -> std::string {
    if (!cross_frame) return d;
    static const std::array<std::pair<std::string_view, std::string_view>, 30> kFold = {{
        {"Int8", "int"},           {"torch.int8", "int"},
        {"UInt8", "int"},          {"torch.uint8", "int"},
        {"Int16", "int"},          {"torch.int16", "int"},
        {"UInt16", "int"},         {"torch.uint16", "int"},
        {"Int32", "int"},          {"torch.int32", "int"},
        {"UInt32", "int"},         {"torch.uint32", "int"},
        {"Int64", "int"},          {"torch.int64", "int"},
        {"UInt64", "int"},         {"torch.uint64", "int"},
        {"Float16", "float"},      {"torch.float16", "float"},
        {"Float32", "float"},      {"torch.float32", "float"},
        {"Float64", "float"},      {"torch.float64", "float"},
        {"BFloat16", "float"},     {"torch.bfloat16", "float"},
        {"Bool", "bool"},          {"torch.bool", "bool"},
        {"Complex64", "complex"},  {"torch.complex64", "complex"},
        {"Complex128", "complex"}, {"torch.complex128", "complex"},
    }};
    for (auto [from, to] : kFold) {
      if (d == from) return std::string(to);
    }
    return d;
  };
  std::string n = fold(npu), b = fold(bench);
  if (n == b) return true;
  auto in = [](const std::string& d, std::initializer_list<std::string_view> group) {
    return std::find(group.begin(), group.end(), d) != group.end();
  };
  for (auto group : {std::initializer_list<std::string_view>{"Float16", "Float32", "BFloat16"},
                     std::initializer_list<std::string_view>{"torch.float16", "torch.float32", "torch.bfloat16"}}) {
    if (in(n, group) && in(b, group)) return true;
  }
  return false;
}

namespace {

template <class Rows>
std::vector<MsPair> match_rows(const Rows& npu, const Rows& bench, const MsMatchOptions& o) {
  const bool fuzzy = o.fuzzy && o.data_mapping.empty();
  auto nk = npu_keys(npu, o);
  std::vector<std::string> bk = fuzzy || o.msprobe8 ? names_of(bench) : renumbered_keys(bench);
  if (fuzzy) {
    for (auto& k : nk) k = ms_fuzzy_key(k);
    for (auto& k : bk) k = ms_fuzzy_key(k);
  }
  if (o.msprobe8 && o.data_mapping.empty()) {  // 8.x's merge on (key, shape); its -fm checks both too
    for (size_t i = 0; i < nk.size(); ++i) nk[i] += '\x1f' + npu[i].shape;
    for (size_t j = 0; j < bk.size(); ++j) bk[j] += '\x1f' + bench[j].shape;
  }
  std::vector<MsPair> pairs = fuzzy ? fuzzy_pairs(nk, bk) : exact_pairs(nk, bk);
  if (o.data_mapping.empty()) {
    for (auto& p : pairs) {
      if (p.bench && !ms_dtypes_match(npu[p.npu].dtype, bench[*p.bench].dtype, o.cross_frame)) p.bench.reset();
    }
  }
  return pairs;
}

}  // namespace

std::vector<MsPair> ms_match(const std::vector<MsprobeItem>& npu, const std::vector<MsprobeItem>& bench,
                             const MsMatchOptions& o) {
  return match_rows(npu, bench, o);
}

std::vector<MsPair> ms_match(const MsItemStore& npu, const MsItemStore& bench, const MsMatchOptions& o) {
  return match_rows(npu, bench, o);
}

}  // namespace msit
