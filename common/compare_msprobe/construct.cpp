// construct.json read as a stream (common/formats/json_stream.h) for one entry's parents.
#include "common/compare_msprobe/construct.h"

#include "common/base/unique_fd.h"
#include "common/formats/json_stream.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"

namespace msit {
namespace {

constexpr size_t kMaxDepth = 64;

// The parent construct.json gives `entry` ("" for none or a non-string value).
Result<std::string> parent_of(const std::string& path, const std::string& entry) {
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path, &size));
  FileSource src(fd.get(), path, size);
  JsonStream js(src);
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
  if (t != JsonToken::kBeginObject) return make_error(path, Stage::kParse, "not msProbe's construct.json (an object)");
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    if (t == JsonToken::kEndObject) return std::string();
    if (t != JsonToken::kKey) return make_error(path, Stage::kParse, "not msProbe's construct.json");
    if (js.text() != entry) {
      MSIT_TRY(js.skip_value());
      continue;
    }
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    if (t == JsonToken::kString) return std::string(js.text());
    return std::string();
  }
}

}  // namespace

Result<std::vector<std::string>> ms_module_chain(const std::string& construct_json, const std::string& entry) {
  std::vector<std::string> chain;
  std::string at = entry;
  while (chain.size() < kMaxDepth) {
    MSIT_ASSIGN_OR_RETURN(std::string parent, parent_of(construct_json, at));
    if (parent.empty()) break;
    chain.push_back(parent);
    at = std::move(parent);
  }
  return chain;
}

}  // namespace msit
