// GE graph text parser: protobuf text-format tokenizer + a generic field tree, from which the
// op names, types, inputs, attributes and `_fx_tensor_name` tags are taken (docs/formats/graph-text.md §2-§3).
#include "common/formats/graph_text.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "common/io/file.h"

namespace msit {
namespace {

constexpr int kMaxDepth = 64;
constexpr size_t kMaxGraphBytes = size_t{1} << 30;

struct TextNode {
  std::string name;
  bool is_message = false;
  std::string scalar;  // unescaped string or literal token text
  std::vector<TextNode> children;
};

enum class Tok : uint8_t { kEnd, kIdent, kString, kPunct };

class Tokenizer {
 public:
  Tokenizer(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  // Reads the next token into kind_/text_; errors on an unterminated string or a bad escape.
  Status next() {
    skip_space();
    text_.clear();
    if (pos_ >= s_.size()) {
      kind_ = Tok::kEnd;
      return ok_status();
    }
    char c = s_[pos_];
    if (c == '"' || c == '\'') {
      kind_ = Tok::kString;
      // Adjacent string literals concatenate, as in the protobuf text format.
      while (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'')) {
        MSIT_TRY(read_string(s_[pos_]));
        skip_space();
      }
      return ok_status();
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' || c == '.') {
      kind_ = Tok::kIdent;
      while (pos_ < s_.size()) {
        char d = s_[pos_];
        if (!(std::isalnum(static_cast<unsigned char>(d)) || d == '_' || d == '-' || d == '+' || d == '.')) break;
        text_.push_back(d);
        ++pos_;
      }
      return ok_status();
    }
    kind_ = Tok::kPunct;
    text_.assign(1, c);
    ++pos_;
    return ok_status();
  }

  Tok kind() const { return kind_; }
  const std::string& text() const { return text_; }
  bool is(char p) const { return kind_ == Tok::kPunct && text_.size() == 1 && text_[0] == p; }
  Error error(const std::string& what) const {
    return make_error(path_, Stage::kGraphText, "line " + std::to_string(line_) + ": " + what);
  }

 private:
  void skip_space() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
        continue;
      }
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
        continue;
      }
      break;
    }
  }

  Status read_string(char quote) {
    ++pos_;
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == quote) return ok_status();
      if (c == '\n') return error("newline inside a string");
      if (c != '\\') {
        text_.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
        case 'n': text_.push_back('\n'); break;
        case 't': text_.push_back('\t'); break;
        case 'r': text_.push_back('\r'); break;
        case 'a': text_.push_back('\a'); break;
        case 'b': text_.push_back('\b'); break;
        case 'f': text_.push_back('\f'); break;
        case 'v': text_.push_back('\v'); break;
        case 'x': {
          int v = 0, n = 0;
          while (n < 2 && pos_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[pos_]))) {
            char h = s_[pos_++];
            v = v * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
            ++n;
          }
          if (n == 0) return error("bad \\x escape");
          text_.push_back(static_cast<char>(v));
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0', n = 1;
            while (n < 3 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7') {
              v = v * 8 + (s_[pos_++] - '0');
              ++n;
            }
            text_.push_back(static_cast<char>(v & 0xFF));
          } else {
            text_.push_back(e);  // \\ \" \' \? and unknown escapes keep the character
          }
      }
    }
    return error("unterminated string");
  }

  std::string_view s_;
  const std::string& path_;
  size_t pos_ = 0;
  int line_ = 1;
  Tok kind_ = Tok::kEnd;
  std::string text_;
};

// Parses fields until `close` (or end of input when close == 0) into `out`.
Status parse_fields(Tokenizer& tk, std::vector<TextNode>& out, char close, int depth) {
  if (depth > kMaxDepth) return tk.error("nesting deeper than " + std::to_string(kMaxDepth));
  while (true) {
    if (tk.kind() == Tok::kEnd) {
      if (close != 0) return tk.error("unexpected end of file (missing '" + std::string(1, close) + "')");
      return ok_status();
    }
    if (close != 0 && tk.is(close)) {
      MSIT_TRY(tk.next());
      return ok_status();
    }
    if (tk.kind() == Tok::kPunct && (tk.is(';') || tk.is(','))) {
      MSIT_TRY(tk.next());
      continue;
    }
    if (tk.kind() == Tok::kPunct && tk.is('[')) {  // extension / Any names: [type.googleapis.com/x]
      while (tk.kind() != Tok::kEnd && !tk.is(']')) MSIT_TRY(tk.next());
    } else if (tk.kind() != Tok::kIdent) {
      return tk.error("expected a field name, found '" + tk.text() + "'");
    }
    TextNode node;
    node.name = tk.text();
    MSIT_TRY(tk.next());
    bool colon = tk.is(':');
    if (colon) MSIT_TRY(tk.next());
    if (tk.is('{') || tk.is('<')) {
      char end = tk.is('{') ? '}' : '>';
      MSIT_TRY(tk.next());
      node.is_message = true;
      MSIT_TRY(parse_fields(tk, node.children, end, depth + 1));
      out.push_back(std::move(node));
      continue;
    }
    if (!colon) return tk.error("expected ':' or '{' after field '" + node.name + "'");
    if (tk.is('[')) {  // repeated scalar shorthand: name: [a, b]
      MSIT_TRY(tk.next());
      while (!tk.is(']')) {
        if (tk.kind() == Tok::kEnd) return tk.error("unterminated list");
        if (!tk.is(',')) {
          TextNode item{node.name, false, tk.text(), {}};
          out.push_back(std::move(item));
        }
        MSIT_TRY(tk.next());
      }
      MSIT_TRY(tk.next());
      continue;
    }
    if (tk.kind() != Tok::kIdent && tk.kind() != Tok::kString) {
      return tk.error("expected a value for field '" + node.name + "'");
    }
    node.scalar = tk.text();
    MSIT_TRY(tk.next());
    out.push_back(std::move(node));
  }
}

const TextNode* child(const TextNode& n, std::string_view name) {
  for (const auto& c : n.children) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Numbers of the text format: decimal, hex, octal; floats also as `inf`, `nan`, `1e-06f`.
std::optional<int64_t> int_of(const std::string& t) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 0);
  if (t.empty() || errno != 0 || end != t.c_str() + t.size()) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<double> float_of(std::string t) {
  if (!t.empty() && (t.back() == 'f' || t.back() == 'F') && t.find_first_of("nN") == std::string::npos) t.pop_back();
  std::string lower;
  for (char c : t) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "inf" || lower == "infinity" || lower == "+inf") return HUGE_VAL;
  if (lower == "-inf" || lower == "-infinity") return -HUGE_VAL;
  if (lower == "nan" || lower == "-nan") return std::nan("");
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

std::optional<bool> bool_of(const std::string& t) {
  if (t == "true" || t == "True" || t == "t" || t == "1") return true;
  if (t == "false" || t == "False" || t == "f" || t == "0") return false;
  return std::nullopt;
}

// The value of one `list { ... }`: its first element kind decides (val_type is a hint only).
void list_value(const TextNode& list, GraphAttr& a) {
  a.kind = AttrKind::kIntList;  // an empty list reads as an empty int list
  for (const auto& e : list.children) {
    if (e.is_message) continue;
    if (e.name == "i") {
      if (auto v = int_of(e.scalar)) a.ints.push_back(*v);
    } else if (e.name == "f") {
      a.kind = AttrKind::kFloatList;
      if (auto v = float_of(e.scalar)) a.floats.push_back(*v);
    } else if (e.name == "b") {
      a.kind = AttrKind::kBoolList;
      if (auto v = bool_of(e.scalar)) a.ints.push_back(*v ? 1 : 0);
    }
  }
}

// `attr { key: "k" value { b: true } }`: a value whose text does not parse stays kNone, so a
// reader asking for it reports the attribute as missing rather than taking a default.
std::optional<GraphAttr> attr_from_node(const TextNode& a) {
  const TextNode* key = child(a, "key");
  const TextNode* value = child(a, "value");
  if (!key || key->is_message || !value || !value->is_message) return std::nullopt;
  GraphAttr out;
  out.key = key->scalar;
  for (const auto& v : value->children) {
    if (v.is_message) {
      if (v.name == "list") list_value(v, out);
      continue;
    }
    if (v.name == "i") {
      if (auto x = int_of(v.scalar)) out.kind = AttrKind::kInt, out.i = *x;
    } else if (v.name == "f") {
      if (auto x = float_of(v.scalar)) out.kind = AttrKind::kFloat, out.f = *x;
    } else if (v.name == "b") {
      if (auto x = bool_of(v.scalar)) out.kind = AttrKind::kBool, out.b = *x;
    } else if (v.name == "s") {
      out.kind = AttrKind::kString, out.s = v.scalar;
    } else if (v.name == "dt") {
      out.kind = AttrKind::kDtype, out.s = v.scalar;
    }
  }
  return out;
}

GraphOp op_from_node(const TextNode& n) {
  GraphOp op;
  for (const auto& f : n.children) {
    if (f.name == "name" && !f.is_message) op.name = f.scalar;
    else if (f.name == "type" && !f.is_message) op.type = f.scalar;
    else if (f.name == "input" && !f.is_message) op.inputs.push_back(f.scalar);
    else if (f.name == "attr" && f.is_message) {
      if (auto a = attr_from_node(f)) op.attrs.push_back(std::move(*a));
    } else if (f.name == "output_desc" && f.is_message) {
      GraphOutputDesc desc;
      for (const auto& a : f.children) {
        if (a.name != "attr" || !a.is_message) continue;
        const TextNode* key = child(a, "key");
        const TextNode* value = child(a, "value");
        if (!key || key->is_message || key->scalar != "_fx_tensor_name" || !value || !value->is_message) continue;
        const TextNode* s = child(*value, "s");
        if (s && !s->is_message) desc.fx_tensor_names.push_back(s->scalar);
      }
      op.output_descs.push_back(std::move(desc));
    }
  }
  return op;
}

}  // namespace

const GraphAttr* GraphOp::attr(std::string_view key) const {
  for (const auto& a : attrs) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

const GraphOp* GraphDef::find(std::string_view op_name) const {
  auto it = index_of.find(std::string(op_name));
  return it == index_of.end() ? nullptr : &ops[it->second];
}

int64_t GraphDef::position(std::string_view op_name) const {
  auto it = index_of.find(std::string(op_name));
  return it == index_of.end() ? -1 : static_cast<int64_t>(it->second);
}

Result<GraphDef> parse_graph_text(std::string_view text, const std::string& path) {
  Tokenizer tk(text, path);
  MSIT_TRY(tk.next());
  std::vector<TextNode> top;
  MSIT_TRY(parse_fields(tk, top, 0, 0));
  GraphDef g;
  for (auto& n : top) {
    if (n.name == "name" && !n.is_message) g.name = n.scalar;
    if (n.name != "op" || !n.is_message) continue;  // graph-level attr blocks etc. are not ops
    GraphOp op = op_from_node(n);
    if (op.name.empty()) continue;  // msit skips ops without a name too
    g.index_of.emplace(op.name, g.ops.size());
    g.ops.push_back(std::move(op));
  }
  return g;
}

Result<GraphDef> read_graph_text_file(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::string text, read_small_file(path, kMaxGraphBytes));
  return parse_graph_text(text, path);
}

std::string fx_node_key_from_tensor_name(std::string_view name) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() >= 2 && parts[parts.size() - 2] == "OUTPUT") {
    size_t cut = name.size() - parts.back().size() - 1 - parts[parts.size() - 2].size() - 1;
    return std::string(name.substr(0, cut));
  }
  return std::string(name);
}

std::optional<uint64_t> graph_file_sort_key(std::string_view file_name) {
  size_t i = 0;
  while (i < file_name.size() && !std::isdigit(static_cast<unsigned char>(file_name[i]))) ++i;
  if (i == file_name.size()) return std::nullopt;
  uint64_t v = 0;
  for (; i < file_name.size() && std::isdigit(static_cast<unsigned char>(file_name[i])); ++i) {
    uint64_t d = static_cast<uint64_t>(file_name[i] - '0');
    v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;  // saturate absurdly long ids
  }
  return v;
}

bool is_original_graph_file_name(std::string_view n) {
  constexpr std::string_view kPrefix = "dynamo_original_graph_";
  return n.size() > kPrefix.size() + 4 && n.substr(0, kPrefix.size()) == kPrefix && n.substr(n.size() - 4) == ".txt";
}

}  // namespace msit
