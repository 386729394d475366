// A pull tokenizer for JSON text of any size (msProbe's dump.json, docs/formats/msprobe.md §9):
// reads its source in fixed chunks, so memory is bounded by the chunk, the longest string and
// the nesting depth, never by the file. Accepts Python's bare NaN, Infinity and -Infinity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/io/byte_source.h"

namespace msit {

enum class JsonToken : uint8_t {
  kBeginObject,
  kEndObject,
  kBeginArray,
  kEndArray,
  kKey,     // an object member's name: text()
  kString,  // text()
  kNumber,  // number(), is_integer() / integer(), text() as written
  kTrue,
  kFalse,
  kNull,
  kEnd,  // the top-level value ended and only whitespace followed
};

struct JsonLimits {
  uint32_t max_depth = 512;         // msProbe nests at most 400 deep (docs/formats/msprobe.md §5)
  size_t max_string = 1u << 20;     // longest decoded string or number text
  size_t chunk_bytes = 256u << 10;  // read size
};

// Errors: text that ends inside the value is Stage::kIncomplete ("ends before its JSON text
// does": a file still being written); anything else that is not JSON is Stage::kParse with the
// byte offset. Both name src.path().
class JsonStream {
 public:
  explicit JsonStream(ByteSource& src, JsonLimits limits = {});

  Result<JsonToken> next();
  // Skips the value that starts with the next token (after a kKey, or in an array): the whole
  // object or array, or one scalar. Returns the first token of the skipped value.
  Result<JsonToken> skip_value();

  std::string_view text() const { return text_; }
  double number() const { return number_; }
  bool is_integer() const { return is_integer_; }  // written without '.', 'e', and fits int64
  int64_t integer() const { return integer_; }
  // Offset just after the last token read, and the depth inside it (0: top level).
  uint64_t offset() const { return consumed_; }
  uint32_t depth() const { return static_cast<uint32_t>(stack_.size()); }

 private:
  enum class Expect : uint8_t { kValue, kValueOrEnd, kKeyOrEnd, kKey, kColon, kCommaOrEnd, kDone };
  Result<int> peek_byte();  // -1 at the end of the source
  Result<int> take_byte();
  Status skip_space();
  Status fill();
  Error syntax(const std::string& what) const;
  Error truncated() const;
  Result<JsonToken> value_token(int c);
  Status read_string();
  Status read_number_or_word();
  Status read_escape();
  void after_value();

  ByteSource& src_;
  JsonLimits limits_;
  std::vector<std::byte> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t buf_start_ = 0;  // source offset of buf_[0]
  uint64_t consumed_ = 0;
  std::vector<bool> stack_;  // true: object
  Expect expect_ = Expect::kValue;
  std::string text_;
  double number_ = 0;
  int64_t integer_ = 0;
  bool is_integer_ = false;
};

}  // namespace msit
