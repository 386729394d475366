// msProbe's -lm (docs/formats/msprobe-compare.md §3.1): both sides' entries in scope trees, the
// target's scopes renamed per layer class, the golden entry at the same place and call index, and
// from each entry pair a row-to-row data mapping.
#include "common/compare_msprobe/layer_mapping.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_set>

#include "common/base/unique_fd.h"
#include "common/compare_msprobe/layer_mapping_internal.h"
#include "common/formats/json_stream.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"
#include "common/io/path_name.h"

namespace msit {
namespace {

constexpr std::string_view kNa = "N/A";

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Streams the top-level object of `path`, calling `on(key, js)` with the stream before each value
// (which `on` must consume whole).
template <typename F>
Status each_member(const std::string& path, F&& on) {
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path, &size));
  FileSource src(fd.get(), path, size);
  JsonStream js(src);
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
  if (t != JsonToken::kBeginObject) return make_error(path, Stage::kParse, "not an object (msProbe writes one)");
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    if (t == JsonToken::kEndObject) return ok_status();
    if (t != JsonToken::kKey) return make_error(path, Stage::kParse, "not an object of names");
    std::string key(js.text());
    MSIT_TRY(on(key, js));
  }
}

// Reads up to the end of the object or array whose opening token was just read.
Status skip_open(JsonStream& js) {
  for (uint32_t depth = 1; depth > 0;) {
    MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
    if (t == JsonToken::kBeginArray || t == JsonToken::kBeginObject) ++depth;
    if (t == JsonToken::kEndArray || t == JsonToken::kEndObject) --depth;
  }
  return ok_status();
}

// A string value ("" for null or another type); construct.json's Megatron form [parent, micro step].
Result<std::string> parent_value(JsonStream& js) {
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
  if (t == JsonToken::kString) return std::string(js.text());
  if (t != JsonToken::kBeginArray) {
    if (t == JsonToken::kBeginObject) MSIT_TRY(skip_open(js));
    return std::string();
  }
  std::string first;
  bool at_first = true;
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    if (t == JsonToken::kEndArray) return first;
    if (at_first && t == JsonToken::kString) first = js.text();
    if (t == JsonToken::kBeginArray || t == JsonToken::kBeginObject) MSIT_TRY(skip_open(js));
    at_first = false;
  }
}

// A stack.json value: the frames when it is a list of texts (the per-entry format); nullopt
// otherwise (the deduplicated format's groups, or anything else: no stack for that key).
Result<std::optional<std::vector<std::string>>> frames_value(JsonStream& js) {
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
  if (t == JsonToken::kBeginObject) MSIT_TRY(skip_open(js));
  if (t != JsonToken::kBeginArray) return std::optional<std::vector<std::string>>();
  std::vector<std::string> frames;
  bool texts = true;
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    if (t == JsonToken::kEndArray) break;
    if (t == JsonToken::kString) {
      if (texts) frames.emplace_back(js.text());
      continue;
    }
    texts = false;
    if (t == JsonToken::kBeginArray || t == JsonToken::kBeginObject) MSIT_TRY(skip_open(js));
  }
  if (!texts) return std::optional<std::vector<std::string>>();
  return std::optional<std::vector<std::string>>(std::move(frames));
}

// The entry names of a dump.json's "data", in file order, each once.
Result<std::vector<std::string>> entry_names(const std::string& dump_json) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  MSIT_TRY(each_member(dump_json, [&](const std::string& key, JsonStream& js) -> Status {
    if (key != "data") {
      MSIT_TRY(js.skip_value());
      return ok_status();
    }
    MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
    if (t != JsonToken::kBeginObject) {
      if (t == JsonToken::kBeginArray) MSIT_TRY(skip_open(js));
      return ok_status();
    }
    for (;;) {
      MSIT_ASSIGN_OR_RETURN(t, js.next());
      if (t == JsonToken::kEndObject) return ok_status();
      std::string name(js.text());
      if (seen.insert(name).second) names.push_back(std::move(name));
      MSIT_TRY(js.skip_value());
    }
  }));
  return names;
}

// One side's entries with their scopes (msProbe's data items), in dump.json order.
struct SideScopes {
  std::vector<std::string> names;
  std::vector<MsLayerScope> scopes;
};

Result<SideScopes> side_scopes(const MsprobeSide& side) {
  SideScopes out;
  const std::string dir = parent_dir(side.json_path);
  const std::string stack_json = dir + "/stack.json", construct_json = dir + "/construct.json";
  const bool have_stack = exists(stack_json), have_construct = exists(construct_json);
  if (!have_stack && !have_construct) return out;  // no scopes: msProbe maps nothing from this side
  if (!have_stack || !have_construct) {
    return make_error(have_stack ? construct_json : stack_json, Stage::kOpen,
                      "missing: -lm needs both stack.json and construct.json beside " + side.json_path);
  }
  std::unordered_map<std::string, std::string> parents;
  MSIT_TRY(each_member(construct_json, [&](const std::string& key, JsonStream& js) -> Status {
    MSIT_ASSIGN_OR_RETURN(std::string parent, parent_value(js));
    parents[key] = std::move(parent);
    return ok_status();
  }));
  const bool mindspore =
      side.header.framework == MsprobeFramework::kMindspore || side.header.framework == MsprobeFramework::kMindtorch;
  std::unordered_map<std::string, std::string> frame_of;  // entry -> its framework function
  MSIT_TRY(each_member(stack_json, [&](const std::string& key, JsonStream& js) -> Status {
    MSIT_ASSIGN_OR_RETURN(auto frames, frames_value(js));
    if (!frames) return ok_status();
    auto f = ms_frame_scope(*frames, mindspore);
    if (!f.ok()) return make_error(stack_json, Stage::kParse, "'" + key + "': " + f.error().to_string());
    frame_of[key] = std::move(*f);
    return ok_status();
  }));
  MSIT_ASSIGN_OR_RETURN(out.names, entry_names(side.json_path));
  out.scopes.reserve(out.names.size());
  for (const std::string& name : out.names) {
    auto p = parents.find(name);
    auto f = frame_of.find(name);
    auto s = ms_layer_scope(name, p == parents.end() ? "" : p->second, f == frame_of.end() ? "" : f->second);
    if (!s.ok()) return make_error(side.json_path, Stage::kParse, s.error().to_string());
    out.scopes.push_back(std::move(*s));
  }
  return out;
}

// A backward entry takes the scopes of its forward entry (backward calls have no stack).
void backward_pass(SideScopes& side) {
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < side.names.size(); ++i) index.emplace(side.names[i], i);
  for (size_t i = 0; i < side.names.size(); ++i) {
    std::vector<std::string> parts = ms_split_dots(side.names[i]);
    const size_t from = parts.size() >= 2 ? parts.size() - 2 : 0;
    bool backward = false;
    for (size_t k = from; k < parts.size(); ++k) {
      if (parts[k] == "backward") backward = true;
      for (size_t at; (at = parts[k].find("backward")) != std::string::npos;) parts[k].replace(at, 8, "forward");
    }
    if (!backward) continue;
    std::string forward;
    for (size_t k = 0; k < parts.size(); ++k) forward += (k ? "." : "") + parts[k];
    auto f = index.find(forward);
    if (f == index.end()) continue;
    MsLayerScope& s = side.scopes[i];
    const MsLayerScope& fs = side.scopes[f->second];
    s.frame_scope = fs.frame_scope;
    s.full_scope = fs.full_scope;
    s.layer_scope = fs.layer_scope;
  }
}

// The field after `prefix.` in `scope` (up to the next dot; none when empty or holding a space)
// and the last run of digits in it.
struct NextField {
  size_t length = 0;
  std::optional<int64_t> number;
};
std::optional<NextField> next_field(std::string_view scope, std::string_view prefix) {
  if (scope.size() <= prefix.size() || scope.substr(0, prefix.size()) != prefix || scope[prefix.size()] != '.') {
    return std::nullopt;
  }
  std::string_view rest = scope.substr(prefix.size() + 1);
  std::string_view field = rest.substr(0, rest.find('.'));
  if (field.empty() ||
      std::any_of(field.begin(), field.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  NextField out{field.size(), std::nullopt};
  for (size_t i = field.size(); i > 0; --i) {
    if (!std::isdigit(static_cast<unsigned char>(field[i - 1]))) continue;
    size_t end = i;
    while (i > 0 && std::isdigit(static_cast<unsigned char>(field[i - 1]))) --i;
    int64_t v = 0;
    for (size_t k = i; k < end; ++k) v = std::min<int64_t>(v * 10 + (field[k] - '0'), int64_t{1} << 53);
    out.number = v;
    break;
  }
  return out;
}

// Megatron's ParallelTransformer numbers its `layers` globally under pipeline parallelism: every
// `{scope of a ParallelTransformer}.layers.{N}` is renumbered from the smallest N seen, so both
// sides count from 0.
void renumber_pass(SideScopes& side) {
  std::vector<std::string> prefixes;
  for (const MsLayerScope& s : side.scopes) {
    if (s.type_name != "ParallelTransformer") continue;
    std::string p = s.full_scope + ".layers";
    if (std::find(prefixes.begin(), prefixes.end(), p) == prefixes.end()) prefixes.push_back(std::move(p));
  }
  std::vector<std::optional<int64_t>> smallest(prefixes.size());
  for (size_t i = 0; i < prefixes.size(); ++i) {
    for (const MsLayerScope& s : side.scopes) {
      auto f = next_field(s.full_scope, prefixes[i]);
      if (f && f->number && (!smallest[i] || *f->number < *smallest[i])) smallest[i] = f->number;
    }
  }
  for (size_t i = 0; i < prefixes.size(); ++i) {
    for (MsLayerScope& s : side.scopes) {
      auto f = next_field(s.full_scope, prefixes[i]);
      if (!f || (f->number.has_value() != smallest[i].has_value())) continue;  // msProbe: an infinite index
      // No number anywhere under the prefix: msProbe's index is inf - inf, written "nan".
      std::string index = f->number ? std::to_string(*f->number - *smallest[i]) : "nan";
      s.full_scope.replace(prefixes[i].size() + 1, f->length, index);
    }
  }
}

// A tree of scopes: each node's class (the type of the last entry placed on it) and its entries
// per state, in dump.json order.
struct Node {
  std::string type_name;
  std::unordered_map<std::string, std::unique_ptr<Node>> children;
  std::unordered_map<std::string, std::vector<uint32_t>> items;
  const Node* child(const std::string& name) const {
    auto c = children.find(name);
    return c == children.end() ? nullptr : c->second.get();
  }
};

Node build_tree(const SideScopes& side) {
  Node root{"TopLayer", {}, {}};
  for (size_t i = 0; i < side.scopes.size(); ++i) {
    const MsLayerScope& s = side.scopes[i];
    std::vector<std::string> parts = ms_split_dots(s.full_scope);
    Node* at = &root;
    for (size_t k = 1; k < parts.size(); ++k) {
      auto& c = at->children[parts[k]];
      if (!c) c = std::make_unique<Node>(Node{parts[k], {}, {}});
      at = c.get();
    }
    at->items[s.state].push_back(static_cast<uint32_t>(i));
    at->type_name = s.type_name;
  }
  return root;
}

struct Rule {
  std::string origin, target;
  size_t level = 1;
};
// class -> first field of the rule -> rules, longest first.
using Rules = std::unordered_map<std::string, std::unordered_map<std::string, std::vector<Rule>>>;

Rules prepare(const MsLayerMapping& mapping) {
  Rules out;
  for (const auto& [type, pairs] : mapping) {
    // Old files name the top level "Cell"; it stands for "TopLayer" (and wins over it).
    if (type == "TopLayer" && mapping.count("Cell")) continue;
    auto& by_prefix = out[type == "Cell" ? std::string("TopLayer") : type];
    for (const auto& [key, value] : pairs) {
      std::vector<std::string> fields = ms_split_dots(key);
      by_prefix[fields[0]].push_back({key, value.substr(0, value.find('(')), fields.size()});
    }
    for (auto& [prefix, rules] : by_prefix) {
      std::stable_sort(rules.begin(), rules.end(), [](const Rule& a, const Rule& b) { return a.level > b.level; });
    }
  }
  return out;
}

// The golden scope of a target entry (its path renamed by the rules of each layer class on the
// way) and its index among the entries of its node with the same state.
std::optional<std::pair<std::string, size_t>> convert(const Node& root, const SideScopes& side, size_t i,
                                                      const Rules& rules) {
  const std::vector<std::string> parts = ms_split_dots(side.scopes[i].full_scope);
  std::string scope = "TopLayer";
  const Node* at = &root;
  for (size_t k = 0; k + 1 < parts.size();) {
    const std::string& child = parts[k + 1];
    size_t step = 1;
    std::string target = child;
    if (auto t = rules.find(at->type_name); t != rules.end()) {
      if (auto p = t->second.find(child); p != t->second.end()) {
        for (const Rule& r : p->second) {
          std::string joined;
          for (size_t j = k + 1; j < parts.size() && j < k + 1 + r.level; ++j)
            joined += (j > k + 1 ? "." : "") + parts[j];
          if (joined == r.origin) {
            target = r.target;
            step = r.level;
            break;
          }
        }
      }
    }
    scope += "." + target;
    for (size_t j = 0; j < step; ++j, ++k) {
      at = at->child(parts[k + 1]);
      if (!at) return std::nullopt;
    }
  }
  auto list = at->items.find(side.scopes[i].state);
  if (list == at->items.end()) return std::nullopt;
  for (size_t j = list->second.size(); j > 0; --j) {
    if (list->second[j - 1] == i) return std::make_pair(scope, j - 1);
  }
  return std::nullopt;
}

// The golden entry at `scope`, the `index`-th of its state there; nullopt for none.
std::optional<uint32_t> query(const Node& root, const std::string& scope, const std::string& state, size_t index) {
  const std::vector<std::string> parts = ms_split_dots(scope);
  const Node* at = &root;
  for (size_t k = 1; k < parts.size() && at; ++k) at = at->child(parts[k]);
  if (!at) return std::nullopt;
  auto list = at->items.find(state);
  if (list == at->items.end() || index >= list->second.size()) return std::nullopt;
  return list->second[index];
}

// Each entry's rows as [begin, end) in the side's items (the last block when a name repeats).
std::unordered_map<std::string_view, std::pair<size_t, size_t>> row_blocks(const MsprobeSide& side) {
  std::unordered_map<std::string_view, std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < side.items.size();) {
    size_t end = i;
    while (end < side.items.size() && side.items[end].entry == side.items[i].entry) ++end;
    out[side.items[i].entry] = {i, end};
    i = end;
  }
  return out;
}

// Row pairs of one entry pair: the golden row whose name has the same suffix after the entry name.
void map_rows(const MsprobeSide& npu, std::pair<size_t, size_t> n, const std::string& npu_entry,
              const MsprobeSide& bench, std::optional<std::pair<size_t, size_t>> b, const std::string& bench_entry,
              std::unordered_map<std::string, std::string>& out) {
  auto suffix = [](const std::string& name, size_t skip) { return name.substr(std::min(skip, name.size())); };
  std::unordered_map<std::string, std::string_view> by_suffix;
  if (b) {
    for (size_t i = b->first; i < b->second; ++i)
      by_suffix[suffix(bench.items[i].name, bench_entry.size())] = bench.items[i].name;
  }
  for (size_t i = n.first; i < n.second; ++i) {
    auto m = by_suffix.find(suffix(npu.items[i].name, npu_entry.size()));
    out[npu.items[i].name] = std::string(m == by_suffix.end() ? kNa : m->second);
  }
}

}  // namespace

bool ms_layer_mapping_applies(const MsprobeSide& npu) {
  return npu.header.framework == MsprobeFramework::kMindspore || npu.header.framework == MsprobeFramework::kMindtorch;
}

Result<std::unordered_map<std::string, std::string>> ms_layer_data_mapping(const MsprobeSide& npu,
                                                                           const MsprobeSide& bench,
                                                                           const MsLayerMapping& mapping) {
  std::unordered_map<std::string, std::string> out;
  MSIT_ASSIGN_OR_RETURN(SideScopes n, side_scopes(npu));
  if (n.names.empty()) return out;
  MSIT_ASSIGN_OR_RETURN(SideScopes b, side_scopes(bench));
  for (SideScopes* s : {&n, &b}) {
    backward_pass(*s);
    renumber_pass(*s);
  }
  const Node npu_tree = build_tree(n), bench_tree = build_tree(b);
  const Rules rules = prepare(mapping);
  const auto npu_rows = row_blocks(npu), bench_rows = row_blocks(bench);
  for (size_t i = 0; i < n.names.size(); ++i) {
    auto rows = npu_rows.find(n.names[i]);
    if (rows == npu_rows.end()) continue;  // an entry without rows (msProbe's compare skips it too)
    std::optional<uint32_t> golden;
    if (auto at = convert(npu_tree, n, i, rules)) golden = query(bench_tree, at->first, n.scopes[i].state, at->second);
    std::string bench_entry = golden ? b.names[*golden] : std::string(kNa);
    std::optional<std::pair<size_t, size_t>> brows;
    if (auto f = bench_rows.find(bench_entry); f != bench_rows.end()) brows = f->second;
    map_rows(npu, rows->second, n.names[i], bench, brows, bench_entry, out);
  }
  return out;
}

}  // namespace msit
