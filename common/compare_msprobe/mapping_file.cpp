// YAML name-to-name mappings (-dm, -cm) and layer mappings (-lm) through libyaml's event parser
// (docs/formats/msprobe-compare.md §3).
#include "common/compare_msprobe/mapping_file.h"

#include <yaml.h>

#include <string_view>
#include <vector>

#include "common/base/unique_fd.h"
#include "common/io/file.h"

namespace msit {
namespace {

class Parser {
 public:
  Parser(std::span<const char> text, const std::string& path, std::string_view shape) : path_(path), shape_(shape) {
    yaml_parser_initialize(&p_);
    static const char kEmpty[1] = {};  // libyaml asserts on a null input (an empty span's data())
    const char* bytes = text.empty() ? kEmpty : text.data();
    yaml_parser_set_input_string(&p_, reinterpret_cast<const unsigned char*>(bytes), text.size());
  }
  ~Parser() {
    if (have_event_) yaml_event_delete(&e_);
    yaml_parser_delete(&p_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // The next event's type; its scalar text in scalar().
  Result<yaml_event_type_t> next() {
    if (have_event_) yaml_event_delete(&e_);
    have_event_ = false;
    if (!yaml_parser_parse(&p_, &e_)) {
      std::string what = p_.problem ? p_.problem : "not YAML";
      return make_error(path_, Stage::kParse,
                        "line " + std::to_string(p_.problem_mark.line + 1) + ": " + what + "; " + std::string(shape_));
    }
    have_event_ = true;
    return e_.type;
  }
  std::string scalar() const {
    return std::string(reinterpret_cast<const char*>(e_.data.scalar.value), e_.data.scalar.length);
  }
  size_t line() const { return e_.start_mark.line + 1; }  // of the current event
  Error bad(const std::string& what) const { return bad_at(line(), what); }
  Error bad_at(size_t line, const std::string& what) const {
    return make_error(path_, Stage::kParse, "line " + std::to_string(line) + ": " + what + "; " + std::string(shape_));
  }

 private:
  const std::string& path_;
  std::string_view shape_;  // what the file should look like, for every error
  yaml_parser_t p_{};
  yaml_event_t e_{};
  bool have_event_ = false;
};

// Walks the document's one top-level mapping, handing each key to `on_key` (the key's scalar is
// the parser's current event; `on_key` reads the value's events). Both mapping files share this
// frame: an empty document ("~" or "") is no keys, a second document is not read, and `nested`
// names a mapping where a key belongs.
template <class OnKey>
Status walk_top_mapping(Parser& p, const std::string& nested, const OnKey& on_key) {
  bool in_map = false, done = false;
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(yaml_event_type_t t, p.next());
    switch (t) {
      case YAML_STREAM_START_EVENT:
      case YAML_DOCUMENT_START_EVENT:
      case YAML_DOCUMENT_END_EVENT: continue;
      case YAML_STREAM_END_EVENT: return ok_status();
      case YAML_MAPPING_START_EVENT:
        if (in_map || done) return p.bad(nested);
        in_map = true;
        continue;
      case YAML_MAPPING_END_EVENT:
        in_map = false;
        done = true;  // a second document is not read
        continue;
      case YAML_SCALAR_EVENT:
        if (!in_map) {
          if (!done && p.scalar().empty()) continue;  // an empty document
          return p.bad("a value outside a mapping");
        }
        MSIT_TRY(on_key(p.scalar()));
        continue;
      case YAML_ALIAS_EVENT: return p.bad("an alias");
      case YAML_SEQUENCE_START_EVENT:
      case YAML_SEQUENCE_END_EVENT: return p.bad("a list");
      case YAML_NO_EVENT: return p.bad("unexpected end");
    }
  }
}

}  // namespace

Result<std::unordered_map<std::string, std::string>> parse_ms_mapping(std::span<const char> text,
                                                                      const std::string& path) {
  std::unordered_map<std::string, std::string> out;
  Parser p(text, path, "a mapping file is lines of 'name: name'");
  MSIT_TRY(walk_top_mapping(p, "a nested mapping", [&](const std::string& key) -> Status {
    MSIT_ASSIGN_OR_RETURN(yaml_event_type_t v, p.next());
    if (v != YAML_SCALAR_EVENT) return p.bad("the value of '" + key + "' is not a name");
    if (!out.emplace(key, p.scalar()).second) return p.bad("'" + key + "' is mapped twice");
    return ok_status();
  }));
  return out;
}

namespace {

constexpr std::string_view kLayerShape =
    "a layer mapping file is 'LayerClass:' lines, each followed by indented "
    "'child.path: golden_child' lines";

// One layer class's block: `child: golden` pairs up to the end of its mapping, in file order.
Result<std::vector<std::pair<std::string, std::string>>> layer_block(Parser& p, const std::string& type) {
  std::vector<std::pair<std::string, std::string>> rules;
  std::unordered_map<std::string, bool> seen;
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(yaml_event_type_t t, p.next());
    if (t == YAML_MAPPING_END_EVENT) return rules;
    if (t != YAML_SCALAR_EVENT) return p.bad("under '" + type + "', a child that is not a name");
    std::string key = p.scalar();
    if (key.empty()) return p.bad("under '" + type + "', an empty child name");
    MSIT_ASSIGN_OR_RETURN(yaml_event_type_t v, p.next());
    if (v != YAML_SCALAR_EVENT || p.scalar().empty()) {
      return p.bad("the value of '" + type + "." + key + "' is not a name");
    }
    if (!seen.emplace(key, true).second) return p.bad("'" + key + "' is mapped twice under '" + type + "'");
    rules.emplace_back(std::move(key), p.scalar());
  }
}

}  // namespace

Result<MsLayerMapping> parse_ms_layer_mapping(std::span<const char> text, const std::string& path) {
  MsLayerMapping out;
  Parser p(text, path, kLayerShape);
  MSIT_TRY(walk_top_mapping(p, "a mapping where a layer class name belongs", [&](const std::string& type) -> Status {
    const size_t type_line = p.line();
    MSIT_ASSIGN_OR_RETURN(yaml_event_type_t v, p.next());
    if (v != YAML_MAPPING_START_EVENT) return p.bad("the value of '" + type + "' is not a mapping of names");
    MSIT_ASSIGN_OR_RETURN(auto rules, layer_block(p, type));
    if (!out.emplace(type, std::move(rules)).second) return p.bad_at(type_line, "'" + type + "' is listed twice");
    return ok_status();
  }));
  return out;
}

namespace {

Result<std::vector<char>> read_small_file(const std::string& path) {
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path, &size));
  if (size > kMaxMappingFileBytes) {
    return make_error(path, Stage::kOpen,
                      "larger than " + std::to_string(kMaxMappingFileBytes >> 20) + " MB: not a mapping file");
  }
  std::vector<char> text(size);
  MSIT_TRY(pread_exact(fd.get(), std::as_writable_bytes(std::span<char>(text)), 0, path, Stage::kRead));
  return text;
}

}  // namespace

Result<std::unordered_map<std::string, std::string>> read_ms_mapping_file(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::vector<char> text, read_small_file(path));
  return parse_ms_mapping(text, path);
}

Result<MsLayerMapping> read_ms_layer_mapping_file(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::vector<char> text, read_small_file(path));
  return parse_ms_layer_mapping(text, path);
}

}  // namespace msit
