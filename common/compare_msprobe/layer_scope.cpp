// Where msProbe's -lm places one entry (docs/formats/msprobe-compare.md §3.1): its layer path from
// the entry name or construct.json, and the framework function from stack.json.
#include <cctype>
#include <string_view>

#include "common/compare_msprobe/layer_mapping.h"
#include "common/compare_msprobe/layer_mapping_internal.h"

namespace msit {
namespace {

constexpr std::string_view kParamsGrad = "parameters_grad";

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string join(const std::vector<std::string>& parts, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < parts.size(); ++i) {
    if (i > begin) out += '.';
    out += parts[i];
  }
  return out;
}

bool is_layer(std::string_view api_type) { return api_type == "Cell" || api_type == "Module"; }

// Python's str.split() (runs of whitespace) of `s`, the word at `i`, or nullopt.
std::optional<std::string> whitespace_word(std::string_view s, size_t i) {
  size_t at = 0, n = 0;
  while (at < s.size()) {
    while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
    if (at == s.size()) break;
    size_t end = at;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
    if (n++ == i) return std::string(s.substr(at, end - at));
    at = end;
  }
  return std::nullopt;
}

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

}  // namespace

std::vector<std::string> ms_split_dots(std::string_view s) {
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    size_t dot = s.find('.', at);
    out.emplace_back(s.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at));
    if (dot == std::string_view::npos) return out;
    at = dot + 1;
  }
}

Result<std::string> ms_frame_scope(const std::vector<std::string>& frames, bool mindspore) {
  // The frames between the last "Template" line before the end marker and that marker.
  long start = -1;
  size_t end = frames.size();
  for (size_t i = 0; i < frames.size(); ++i) {
    if (contains(frames[i], "Template")) {
      start = static_cast<long>(i);
    } else if (start >= 0 && (mindspore ? contains(frames[i], "construct")
                                        : contains(frames[i], "in forward,") || contains(frames[i], "in backward,"))) {
      end = i;
      break;
    }
  }
  // The last of the leading framework frames (the file part names torch's or MindSpore's package).
  const std::string* frame = nullptr;
  for (size_t i = static_cast<size_t>(start + 1); i < end; ++i) {
    std::string_view file = std::string_view(frames[i]).substr(0, frames[i].find(','));
    bool framework = contains(file, "site-packages/torch") || contains(file, "package/torch") ||
                     contains(file, "site-packages/mindspore") || contains(file, "package/mindspore");
    if (!framework) break;
    frame = &frames[i];
  }
  if (!frame || frame->empty()) return std::string();
  std::vector<std::string_view> fields;
  for (size_t at = 0;;) {
    size_t comma = frame->find(',', at);
    fields.push_back(std::string_view(*frame).substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (contains(fields[0], "msprobe") || contains(fields[0], "MindSpeed")) return std::string();
  auto bad = [&] {
    return make_error(
        "stack.json", Stage::kParse,
        "the frame '" + *frame + "' has no 'in FUNCTION' field (expected 'File F, line N, in FUNCTION, CODE')");
  };
  if (fields.size() < 3) return bad();
  if (contains(fields[2], "construct") || contains(fields[2], "__call__")) return std::string();
  auto func = whitespace_word(fields[2], 1);
  if (!func) return bad();
  return *func;
}

Result<MsLayerScope> ms_layer_scope(const std::string& entry, const std::string& parent,
                                    const std::string& frame_scope) {
  const std::vector<std::string> parts = ms_split_dots(entry);
  const size_t n = parts.size();
  if (n < 4) {
    return make_error("dump.json", Stage::kParse,
                      "the entry '" + entry + "' has fewer than four dot-separated fields; -lm needs msProbe's names");
  }
  MsLayerScope s;
  std::string api_type;
  if (parts[n - 1] == kParamsGrad || (parts[n - 2] == kParamsGrad && all_digits(parts[n - 1]))) {
    const size_t off = parts[n - 1] == kParamsGrad ? 0 : 1;  // old files have no trailing counter
    api_type = kParamsGrad;
    s.api_name = parts[n - 3 - off];
    s.type_name = parts[n - 2 - off];
    s.state = kParamsGrad;
  } else {
    api_type = parts[0];
    s.type_name = parts[n - 3];
    s.api_name = is_layer(api_type) ? parts[n - 4] : s.type_name;
    s.state = is_layer(api_type) ? parts[n - 2] : parts[n - 1];
  }
  if (is_layer(api_type)) {
    s.layer_scope = join(parts, 0, n - 4);  // the enclosing layers, without the module's own name
  } else if (api_type == kParamsGrad) {
    s.layer_scope = join(parts, 0, n - 3);
  } else if (!parent.empty()) {
    const std::vector<std::string> p = ms_split_dots(parent);
    s.layer_scope = join(p, 0, p.size() >= 3 ? p.size() - 3 : 0);
  } else {
    s.layer_scope = "TopLayer";
  }
  if (!parent.empty() && contains(parent, ".") && ms_split_dots(parent).size() < 4) {
    return make_error("construct.json", Stage::kParse,
                      "the parent '" + parent + "' of '" + entry + "' has fewer than four dot-separated fields");
  }
  // Modules and parameter gradients have no stack of their own; Primitive/Jit ones are not read.
  if (!is_layer(api_type) && api_type != "Primitive" && api_type != "Jit") s.frame_scope = frame_scope;
  s.full_scope = s.layer_scope + (s.frame_scope.empty() ? "" : "." + s.frame_scope) + "." + s.api_name;
  return s;
}

}  // namespace msit
