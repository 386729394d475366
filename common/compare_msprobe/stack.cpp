// stack.json through the streaming tokenizer (common/formats/json_stream.h): memory holds each
// distinct stack once, as the cell text msProbe writes for it.
#include "common/compare_msprobe/stack.h"

#include "common/base/unique_fd.h"
#include "common/formats/json_stream.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"

namespace msit {
namespace {

// A JSON array of strings -> Python's str() of the list.
Result<std::string> read_frames(JsonStream& js, const std::string& path) {
  std::string out = "[";
  for (bool first = true;; first = false) {
    MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
    if (t == JsonToken::kEndArray) return out + "]";
    if (t != JsonToken::kString) return make_error(path, Stage::kParse, "a stack frame that is not a string");
    if (!first) out += ", ";
    out += py_str_repr(js.text());
  }
}

Status expect(JsonStream& js, JsonToken want, const std::string& path, const char* what) {
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
  if (t != want) return make_error(path, Stage::kParse, std::string("not msProbe's stack.json: expected ") + what);
  return ok_status();
}

// The rest of an object whose opening token was read.
Status skip_rest(JsonStream& js) {
  for (uint32_t depth = 1; depth > 0;) {
    MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
    if (t == JsonToken::kBeginObject || t == JsonToken::kBeginArray) ++depth;
    if (t == JsonToken::kEndObject || t == JsonToken::kEndArray) --depth;
  }
  return ok_status();
}

}  // namespace

std::string py_str_repr(std::string_view s) {
  const bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  static const char* kHex = "0123456789abcdef";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == q || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + q;
}

Result<MsStackInfo> MsStackInfo::read(const std::string& path) {
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path, &size));
  FileSource src(fd.get(), path, size);
  return read(src);
}

Result<MsStackInfo> MsStackInfo::read(ByteSource& src) {
  const std::string& path = src.path();
  JsonStream js(src);
  MsStackInfo info;
  MSIT_TRY(expect(js, JsonToken::kBeginObject, path, "an object"));
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
    if (t == JsonToken::kEndObject) break;
    if (t != JsonToken::kKey) return make_error(path, Stage::kParse, "not msProbe's stack.json");
    std::string key(js.text());
    MSIT_ASSIGN_OR_RETURN(JsonToken v, js.next());
    if (v != JsonToken::kBeginArray) {
      // Not a stack (msProbe skips it too): the value after the key, already begun.
      if (v == JsonToken::kBeginObject) MSIT_TRY(skip_rest(js));
      continue;
    }
    MSIT_ASSIGN_OR_RETURN(JsonToken first, js.next());
    if (first == JsonToken::kBeginArray) {  // deduplicated: [[entries], [frames]]
      std::vector<std::string> names;
      for (;;) {
        MSIT_ASSIGN_OR_RETURN(JsonToken n, js.next());
        if (n == JsonToken::kEndArray) break;
        if (n != JsonToken::kString) return make_error(path, Stage::kParse, "an entry name that is not a string");
        names.emplace_back(js.text());
      }
      MSIT_TRY(expect(js, JsonToken::kBeginArray, path, "a frame list"));
      MSIT_ASSIGN_OR_RETURN(std::string cell, read_frames(js, path));
      MSIT_TRY(expect(js, JsonToken::kEndArray, path, "the end of a stack group"));
      const auto at = static_cast<uint32_t>(info.stacks_.size());
      info.stacks_.push_back(std::move(cell));
      for (auto& n : names) info.index_[std::move(n)] = at;
      continue;
    }
    // Old format: entry -> frames.
    std::string cell = "[";
    for (JsonToken f = first; f != JsonToken::kEndArray;) {
      if (f != JsonToken::kString) return make_error(path, Stage::kParse, "a stack frame that is not a string");
      if (cell.size() > 1) cell += ", ";
      cell += py_str_repr(js.text());
      MSIT_ASSIGN_OR_RETURN(f, js.next());
    }
    cell += "]";
    info.index_[key] = static_cast<uint32_t>(info.stacks_.size());
    info.stacks_.push_back(std::move(cell));
  }
  return info;
}

std::string MsStackInfo::cell(const std::string& entry) const {
  auto it = index_.find(entry);
  return it == index_.end() ? "N/A" : stacks_[it->second];
}

}  // namespace msit
