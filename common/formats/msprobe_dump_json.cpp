// Streaming dump.json: the top level and its header keys, then "data" one entry at a time
// (docs/formats/msprobe.md §3, §9). Each entry is held as a small JSON value while it is decoded.
#include "common/formats/msprobe_dump_json.h"

#include <sys/file.h>

#include <cctype>
#include <cerrno>
#include <cstdio>

#include "common/base/unique_fd.h"
#include "common/formats/msprobe_internal.h"
#include "common/io/noreplace.h"

namespace msit {
namespace msprobe_internal {

const JsonValue* JsonValue::find(std::string_view key) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &items[i];
  }
  return nullptr;
}

Result<JsonValue> read_json_value(JsonStream& js, JsonToken first, ValueBudget& budget, const std::string& path) {
  if (budget.values_left == 0 || budget.bytes_left < js.text().size() + 16) {
    return make_error(path, Stage::kParse,
                      "an entry larger than the reader's limit near byte " + std::to_string(js.offset()));
  }
  --budget.values_left;
  budget.bytes_left -= js.text().size() + 16;
  JsonValue v;
  v.kind = first;
  switch (first) {
    case JsonToken::kString: v.text = std::string(js.text()); return v;
    case JsonToken::kNumber:
      v.text = std::string(js.text());
      v.number = js.number();
      v.is_integer = js.is_integer();
      v.integer = js.integer();
      return v;
    case JsonToken::kTrue:
    case JsonToken::kFalse:
    case JsonToken::kNull: return v;
    case JsonToken::kBeginObject:
    case JsonToken::kBeginArray: break;
    default: return make_error(path, Stage::kParse, "unexpected JSON token at byte " + std::to_string(js.offset()));
  }
  const bool object = first == JsonToken::kBeginObject;
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
    if (t == JsonToken::kEndObject || t == JsonToken::kEndArray) return v;
    if (object) {
      v.keys.emplace_back(js.text());  // t is kKey: the tokenizer checks the grammar
      MSIT_ASSIGN_OR_RETURN(t, js.next());
    }
    MSIT_ASSIGN_OR_RETURN(JsonValue item, read_json_value(js, t, budget, path));
    v.items.push_back(std::move(item));
  }
}

namespace {

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

void append_json_text(std::string& out, const JsonValue& v) {
  switch (v.kind) {
    case JsonToken::kString: append_json_string(out, v.text); return;
    case JsonToken::kNumber: out += v.text; return;
    case JsonToken::kTrue: out += "true"; return;
    case JsonToken::kFalse: out += "false"; return;
    case JsonToken::kBeginObject:
    case JsonToken::kBeginArray: {
      const bool object = v.is_object();
      out += object ? '{' : '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ", ";
        if (object) {
          append_json_string(out, v.keys[i]);
          out += ": ";
        }
        append_json_text(out, v.items[i]);
      }
      out += object ? '}' : ']';
      return;
    }
    default: out += "null"; return;
  }
}

}  // namespace

std::string json_text(const JsonValue& v) {
  std::string out;
  append_json_text(out, v);
  return out;
}

}  // namespace msprobe_internal

namespace {

using msprobe_internal::JsonValue;

MsprobeTask task_of(std::string_view s) {
  if (s == "statistics") return MsprobeTask::kStatistics;
  if (s == "tensor") return MsprobeTask::kTensor;
  if (s == "structure") return MsprobeTask::kStructure;
  if (s == "overflow_check") return MsprobeTask::kOverflowCheck;
  if (s == "nan_check") return MsprobeTask::kNanCheck;
  return MsprobeTask::kOther;
}

MsprobeLevel level_of(std::string_view s) {
  if (s == "L0") return MsprobeLevel::kL0;
  if (s == "L1") return MsprobeLevel::kL1;
  if (s == "mix") return MsprobeLevel::kMix;
  if (s == "L2") return MsprobeLevel::kL2;
  if (s == "debug") return MsprobeLevel::kDebug;
  return MsprobeLevel::kOther;
}

MsprobeFramework framework_of(std::string_view s) {
  if (s == "pytorch") return MsprobeFramework::kPytorch;
  if (s == "mindspore") return MsprobeFramework::kMindspore;
  if (s == "mindtorch") return MsprobeFramework::kMindtorch;
  return MsprobeFramework::kOther;
}

// A header value: a string, or null (dump_data_dir of a statistics dump); anything else is
// skipped as if absent.
Status read_header_value(JsonStream& js, std::string_view key, MsprobeHeader& h) {
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.skip_value());
  if (t != JsonToken::kString) return ok_status();
  const std::string s(js.text());
  if (key == "task") {
    h.task = task_of(s);
    h.task_text = s;
  } else if (key == "level") {
    h.level = level_of(s);
    h.level_text = s;
  } else if (key == "framework") {
    h.framework = framework_of(s);
    h.framework_text = s;
  } else {
    h.dump_data_dir = s;
  }
  return ok_status();
}

Status read_data(JsonStream& js, const std::string& path, const MsprobeJsonSink& sink, const MsprobeJsonLimits& limits,
                 MsprobeJsonInfo& info) {
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
  if (t == JsonToken::kNull) return ok_status();
  if (t != JsonToken::kBeginObject) return make_error(path, Stage::kParse, "\"data\" is not a JSON object");
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    if (t == JsonToken::kEndObject) return ok_status();
    MsprobeEntry e;
    e.name = std::string(js.text());
    e.parsed = parse_msprobe_entry_name(e.name);
    e.order = info.entries;
    msprobe_internal::ValueBudget budget{limits.max_entry_values, limits.max_entry_bytes};
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    MSIT_ASSIGN_OR_RETURN(JsonValue body, msprobe_internal::read_json_value(js, t, budget, path));
    MSIT_TRY(msprobe_internal::decode_entry(body, path, e));
    ++info.entries;
    if (sink.on_entry) MSIT_TRY(sink.on_entry(std::move(e)));
  }
}

}  // namespace

Result<MsprobeJsonInfo> read_msprobe_json(ByteSource& src, const MsprobeJsonSink& sink,
                                          const MsprobeJsonLimits& limits) {
  const std::string& path = src.path();
  src.will_read_sequentially(0, src.size());
  JsonLimits jl;
  jl.max_depth = limits.max_depth;
  JsonStream js(src, jl);
  MsprobeJsonInfo info;
  MSIT_ASSIGN_OR_RETURN(JsonToken t, js.next());
  if (t != JsonToken::kBeginObject) return make_error(path, Stage::kParse, "the top level is not a JSON object");
  bool header_sent = false;
  auto send_header = [&]() -> Status {
    if (header_sent) return ok_status();
    header_sent = true;
    return sink.on_header ? sink.on_header(info.header) : ok_status();
  };
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(t, js.next());
    if (t == JsonToken::kEndObject) break;
    const std::string key(js.text());
    if (key == "data") {
      MSIT_TRY(send_header());
      MSIT_TRY(read_data(js, path, sink, limits, info));
    } else if (key == "task" || key == "level" || key == "framework" || key == "dump_data_dir") {
      MSIT_TRY(read_header_value(js, key, info.header));
    } else {
      MSIT_TRY(js.skip_value());
    }
  }
  MSIT_ASSIGN_OR_RETURN(t, js.next());  // kEnd, or an error for text after the object
  MSIT_TRY(send_header());
  info.bytes = js.offset();
  return info;
}

Result<MsprobeJsonInfo> read_msprobe_json_at(int dir_fd, const std::string& name, const std::string& shown_as,
                                             const MsprobeJsonSink& sink, const MsprobeJsonLimits& limits) {
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_at(dir_fd, name, shown_as));
  // msProbe takes an exclusive flock while json.dump writes (§3): a held lock means "not yet".
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      return make_error(shown_as, Stage::kIncomplete, "msProbe is writing it (its lock is held); read it again later");
  } else {
    ::flock(fd.get(), LOCK_UN);
  }
  MSIT_ASSIGN_OR_RETURN(FileIdentity before, identity_of(fd.get(), shown_as));
  FileSource src(fd.get(), shown_as, before.size);
  auto r = read_msprobe_json(src, sink, limits);
  MSIT_ASSIGN_OR_RETURN(FileIdentity after, identity_of(fd.get(), shown_as));
  if (!after.same_content_as(before) || after.ctime_ns != before.ctime_ns) {
    return make_error(shown_as, Stage::kIncomplete, "changed while it was read (msProbe rewrites it); read it again");
  }
  return r;
}

DType msprobe_dtype(std::string_view text) {
  std::string s(text);
  if (s.starts_with("torch.")) s.erase(0, 6);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "half") s = "float16";
  if (s == "float") s = "float32";
  if (s == "double") s = "float64";
  return dtype_from_name(s).value_or(DType::kUnknown);
}

std::string_view msprobe_task_name(MsprobeTask t) {
  switch (t) {
    case MsprobeTask::kStatistics: return "statistics";
    case MsprobeTask::kTensor: return "tensor";
    case MsprobeTask::kStructure: return "structure";
    case MsprobeTask::kOverflowCheck: return "overflow_check";
    case MsprobeTask::kNanCheck: return "nan_check";
    case MsprobeTask::kOther: return "other";
    case MsprobeTask::kAbsent: return "absent";
  }
  return "?";
}

std::string_view msprobe_framework_name(MsprobeFramework f) {
  switch (f) {
    case MsprobeFramework::kPytorch: return "pytorch";
    case MsprobeFramework::kMindspore: return "mindspore";
    case MsprobeFramework::kMindtorch: return "mindtorch";
    case MsprobeFramework::kOther: return "other";
    case MsprobeFramework::kAbsent: return "absent";
  }
  return "?";
}

}  // namespace msit
