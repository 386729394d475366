// Reading summary JSON: every key docs/formats/summary.md requires must be there with the right type;
// unknown keys are ignored so newer writers stay readable. The JSON itself is simdjson's DOM
// (fully validating, correctly rounded doubles), with one parser reused per thread.

#include <charconv>
#include <limits>

#include <simdjson.h>

#include "common/io/file.h"
#include "common/summary/block_fields.h"
#include "common/summary/file_fields.h"
#include "common/summary/summary.h"
#include "common/summary/tensor_fields.h"

namespace msit {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// Summaries are small (a sketch is 128 doubles); anything far larger is not ours.
constexpr size_t kMaxSummaryBytes = 64u << 20;
// A parser grown by a rare big summary would otherwise pin that memory in its thread for good.
constexpr size_t kKeepParserBytes = 1u << 20;

// ---- JSON values as the summary rules see them ---------------------------------------------

// simdjson types an integer by range (int64 when it fits, uint64 above INT64_MAX); the summary
// rules were written against nlohmann, which types by sign: a non-negative integer literal is
// unsigned, a negative one signed. One known difference: the literal -0 is simdjson's int64 0,
// so it reads as unsigned 0 (nlohmann: signed 0). Our writer never emits it.
struct Integer {
  enum Kind : uint8_t { kNone, kUnsigned, kSigned } kind = kNone;
  uint64_t u = 0;
  int64_t i = 0;
};

Integer integer_of(element v) {
  if (v.type() == element_type::UINT64) return {Integer::kUnsigned, v.get_uint64().value_unsafe(), 0};
  if (v.type() != element_type::INT64) return {};
  int64_t i = v.get_int64().value_unsafe();
  if (i >= 0) return {Integer::kUnsigned, static_cast<uint64_t>(i), 0};
  return {Integer::kSigned, 0, i};
}

bool is_number(element v) {
  element_type t = v.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}
// Integers convert as static_cast<double>, as nlohmann's get<double>() does.
double number_of(element v) { return v.get_double().value_unsafe(); }

std::string_view string_of(element v) { return v.get_string().value_unsafe(); }
// By value: a range-for straight over get_array().value_unsafe() iterates a dead temporary.
array array_of(element v) { return v.get_array().value_unsafe(); }
object object_of(element v) { return v.get_object().value_unsafe(); }

// Why simdjson refused the text, in words that point at the likely cause. simdjson is stricter
// than nlohmann (the writer) in two ways the writer never meets: integer literals beyond 64 bits
// (nlohmann reads them as doubles; our writer prints every double with '.' or 'e') and nesting
// deeper than 1024 levels are refused as invalid JSON.
std::string json_problem(simdjson::error_code e) {
  std::string msg = "not valid JSON (truncated or corrupt summary): ";
  msg += simdjson::error_message(e);
  if (e == simdjson::NUMBER_ERROR)
    msg += " (numbers beyond the double range and integer literals beyond 64 bits are refused)";
  else if (e == simdjson::DEPTH_ERROR)
    msg += " (nested deeper than " + std::to_string(simdjson::DEFAULT_MAX_DEPTH) + " levels)";
  return msg;
}

// ---- Summary model from the DOM --------------------------------------------------------------

struct Ctx {
  const std::string& path;
  Error fail(const std::string& what) const { return make_error(path, Stage::kSummary, what); }
  Error wrong_type(std::string_view key) const {
    return fail("malformed summary: key \"" + std::string(key) + "\" has the wrong type");
  }
  // Last member named key (JSON parsers keep the last duplicate), or nullopt.
  static std::optional<element> find(object obj, std::string_view key) {
    std::optional<element> last;
    for (simdjson::dom::key_value_pair kv : obj) {
      if (kv.key == key) last = kv.value;
    }
    return last;
  }
  Result<element> member(object obj, std::string_view key) const {
    std::optional<element> v = find(obj, key);
    if (!v) return fail("missing key \"" + std::string(key) + "\"");
    return *v;
  }
};

Result<uint64_t> as_u64(element v, std::string_view key, const Ctx& c) {
  Integer n = integer_of(v);
  if (n.kind != Integer::kUnsigned) return c.wrong_type(key);
  return n.u;
}
Result<uint32_t> as_u32(element v, std::string_view key, const Ctx& c) {
  Integer n = integer_of(v);
  if (n.kind != Integer::kUnsigned || n.u > std::numeric_limits<uint32_t>::max()) return c.wrong_type(key);
  return static_cast<uint32_t>(n.u);
}
Result<int64_t> as_i64(element v, std::string_view key, const Ctx& c) {
  Integer n = integer_of(v);
  if (n.kind == Integer::kSigned) return n.i;
  if (n.kind == Integer::kUnsigned && n.u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return static_cast<int64_t>(n.u);
  return c.wrong_type(key);
}
Result<std::string> as_string(element v, std::string_view key, const Ctx& c) {
  if (v.type() != element_type::STRING) return c.wrong_type(key);
  return std::string(string_of(v));
}
Result<std::vector<uint64_t>> as_dims(element v, std::string_view key, const Ctx& c) {
  if (v.type() != element_type::ARRAY) return c.wrong_type(key);
  std::vector<uint64_t> out;
  for (element d : array_of(v)) {
    MSIT_ASSIGN_OR_RETURN(uint64_t x, as_u64(d, key, c));
    out.push_back(x);
  }
  return out;
}

// Required keys.
template <class F>
auto required(object obj, std::string_view key, const Ctx& c, F as) -> decltype(as(element(), key, c)) {
  MSIT_ASSIGN_OR_RETURN(element v, c.member(obj, key));
  return as(v, key, c);
}
// Optional keys: the default when absent, an error when present with the wrong type.
Result<std::string> opt_string(object obj, std::string_view key, const Ctx& c) {
  if (std::optional<element> v = Ctx::find(obj, key)) return as_string(*v, key, c);
  return std::string();
}

std::optional<double> opt_number(element v) {
  if (is_number(v)) return number_of(v);
  return std::nullopt;
}

Result<double> element_value(element v, const Ctx& c) {
  if (is_number(v)) return number_of(v);
  bool is_string = v.type() == element_type::STRING;
  if (is_string) {
    std::string_view s = string_of(v);
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  std::string shown = is_string ? "\"" + std::string(string_of(v).substr(0, 40)) + "\"" : "a non-number";
  return c.fail("bad element in \"values\": " + shown);
}

Status read_extreme(element v, std::string_view key, const ExtremeRef& e, const Ctx& c) {
  Integer n = integer_of(v);
  if (n.kind == Integer::kUnsigned) {
    e.u64 = n.u;
    e.real = static_cast<double>(n.u);
  } else if (n.kind == Integer::kSigned) {
    e.i64 = n.i;
    e.real = static_cast<double>(n.i);
  } else if (is_number(v)) {
    e.real = number_of(v);
  } else if (!v.is_null()) {
    return c.fail("\"" + std::string(key) + "\" must be a number or null");
  }
  return ok_status();
}

Result<Sketch> sketch_from(element j, const Ctx& c) {
  if (j.type() != element_type::OBJECT) return c.fail("unknown sketch kind (expected countsketch-rot-v1)");
  object o = object_of(j);
  std::optional<element> kind = Ctx::find(o, "kind");
  if (!kind || kind->type() != element_type::STRING || string_of(*kind) != "countsketch-rot-v1")
    return c.fail("unknown sketch kind (expected countsketch-rot-v1)");
  Sketch sk;
  if (std::optional<element> w = Ctx::find(o, "width")) { MSIT_ASSIGN_OR_RETURN(sk.width, as_u32(*w, "width", c)); }
  MSIT_ASSIGN_OR_RETURN(std::string seed, opt_string(o, "seed", c));
  auto [end, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), sk.seed, 16);
  if (seed.size() != 16 || ec != std::errc() || end != seed.data() + seed.size())
    return c.fail("sketch seed must be 16 hex digits");
  std::optional<element> vals = Ctx::find(o, "values");
  bool is_array = vals && vals->type() == element_type::ARRAY;
  size_t n = is_array ? array_of(*vals).size() : 0;
  if ((vals && !is_array) || n != sk.width || sk.width == 0 || (sk.width & (sk.width - 1)))
    return c.fail("sketch width and values disagree or width is not a power of two");
  sk.values.reserve(n);
  for (element v : array_of(*vals)) {
    if (!is_number(v)) return c.fail("sketch values must be numbers");
    sk.values.push_back(number_of(v));
  }
  return sk;
}

Result<std::vector<double>> values_from(element v, const Ctx& c) {
  if (v.type() != element_type::ARRAY) return c.fail("\"values\" must be an array");
  array a = array_of(v);
  std::vector<double> vals;
  vals.reserve(a.size());
  for (element x : a) {
    MSIT_ASSIGN_OR_RETURN(double d, element_value(x, c));
    vals.push_back(d);
  }
  return vals;
}

// Row I of kTensorFields (tensor_fields.h) from its JSON value `j`.
template <size_t I, class V>
Status read_field(element j, V&& v, const Ctx& c) {
  constexpr TensorField d = kTensorFields[I];
  constexpr std::string_view key = d.json_key;
  if constexpr (d.kind == FieldKind::kText || d.kind == FieldKind::kOptText) {
    MSIT_ASSIGN_OR_RETURN(v, as_string(j, key, c));
  } else if constexpr (d.kind == FieldKind::kU32 || d.kind == FieldKind::kOptU32) {
    MSIT_ASSIGN_OR_RETURN(v, as_u32(j, key, c));
  } else if constexpr (d.kind == FieldKind::kDims) {
    MSIT_ASSIGN_OR_RETURN(v, as_dims(j, key, c));
  } else if constexpr (d.kind == FieldKind::kU64) {
    MSIT_ASSIGN_OR_RETURN(v, as_u64(j, key, c));
  } else if constexpr (d.kind == FieldKind::kFlag) {
    if (j.type() != element_type::BOOL) return c.wrong_type(key);
    v = j.get_bool().value_unsafe();
  } else if constexpr (d.kind == FieldKind::kOptReal) {
    v = opt_number(j);  // a non-number (null: not finite when written) is no value
  } else if constexpr (d.kind == FieldKind::kReal) {
    if (!is_number(j)) return c.wrong_type(key);
    v = number_of(j);
  } else if constexpr (d.kind == FieldKind::kExtreme) {
    return read_extreme(j, key, v, c);
  } else if constexpr (d.kind == FieldKind::kElements) {
    MSIT_ASSIGN_OR_RETURN(v, values_from(j, c));
  } else if constexpr (d.kind == FieldKind::kSketch) {
    MSIT_ASSIGN_OR_RETURN(v, sketch_from(j, c));
  } else {
    static_assert(I != I, "a field kind the JSON form cannot read");
  }
  return ok_status();
}

// Required keys must be there; optional ones keep their default when absent; store-only rows
// (JsonRule::kNone) keep theirs.
Status read_fields(object t, TensorSummary& ts, const Ctx& c) {
  Status st = ok_status();
  for_each_tensor_field(ts, [&](auto row, auto&& v) {
    constexpr TensorField d = kTensorFields[row];
    if (!st.ok()) return;
    if constexpr (d.json == JsonRule::kRequired) {
      Result<element> j = c.member(t, d.json_key);
      st = j.ok() ? read_field<row()>(*j, v, c) : Status(j.error());
    } else if constexpr (d.json == JsonRule::kOptional) {
      if (std::optional<element> j = Ctx::find(t, d.json_key)) st = read_field<row()>(*j, v, c);
    }
  });
  return st;
}

Result<TensorSummary> tensor_from(element tv, const Ctx& c) {
  if (tv.type() != element_type::OBJECT) return c.fail("tensor entry is not an object");
  object t = object_of(tv);
  TensorSummary ts;
  MSIT_TRY(read_fields(t, ts, c));
  ts.stats.count = ts.count;
  return ts;
}

// Row I of kFileFields (file_fields.h) from its JSON value `j`.
template <size_t I, class V>
Status read_file_field(element j, V& v, const Ctx& c) {
  constexpr FileField d = kFileFields[I];
  if constexpr (d.kind == FileFieldKind::kText || d.kind == FileFieldKind::kOpText ||
                d.kind == FileFieldKind::kOpOptText) {
    MSIT_ASSIGN_OR_RETURN(v, as_string(j, d.json_key, c));
  } else if constexpr (d.kind == FileFieldKind::kU64) {
    MSIT_ASSIGN_OR_RETURN(v, as_u64(j, d.json_key, c));
  } else if constexpr (d.kind == FileFieldKind::kI64) {
    MSIT_ASSIGN_OR_RETURN(v, as_i64(j, d.json_key, c));
  } else {
    static_assert(I != I, "a file field kind the JSON form cannot read");
  }
  return ok_status();
}

// The file-level fields: "source" is required, and so are its required keys; "op" is read when
// it is an object (each of its keys optional); optional keys keep their default when absent.
Status read_file_fields(object j, FileSummary& s, const Ctx& c) {
  MSIT_ASSIGN_OR_RETURN(element src_v, c.member(j, "source"));
  if (src_v.type() != element_type::OBJECT) return c.wrong_type("source");
  const object src = object_of(src_v);
  std::optional<object> op;
  if (std::optional<element> o = Ctx::find(j, "op"); o && o->type() == element_type::OBJECT) {
    op = object_of(*o);
    s.op.emplace();
  }
  Status st = ok_status();
  for_each_file_field(s, [&](auto row, auto&& v) {
    constexpr FileField d = kFileFields[row];
    if (!st.ok()) return;
    if constexpr (d.json_place == JsonPlace::kSource || d.json_place == JsonPlace::kTop) {
      const object& in = d.json_place == JsonPlace::kSource ? src : j;
      if constexpr (d.json == FileJsonRule::kRequired) {
        Result<element> e = c.member(in, d.json_key);
        st = e.ok() ? read_file_field<row()>(*e, v, c) : Status(e.error());
      } else if (std::optional<element> e = Ctx::find(in, d.json_key)) {
        st = read_file_field<row()>(*e, v, c);
      }
    } else if constexpr (d.json_place == JsonPlace::kOp) {
      static_assert(d.json == FileJsonRule::kOptional, "the op's keys are optional");
      if (!op) return;
      if (std::optional<element> e = Ctx::find(*op, d.json_key)) st = read_file_field<row()>(*e, (*s.op).*v, c);
    }
  });
  return st;
}

Status read_header(object j, FileSummary& s, const Ctx& c) {
  std::optional<element> schema = Ctx::find(j, "schema");
  if (!schema || schema->type() != element_type::STRING || string_of(*schema) != kSummarySchema)
    return c.fail("not an msit-compact summary (schema key)");
  MSIT_ASSIGN_OR_RETURN(int64_t version, required(j, "version", c, as_i64));
  if (version != kSummaryVersion) {
    return c.fail("summary version " + std::to_string(version) + " is not supported (this build reads version " +
                  std::to_string(kSummaryVersion) + ")");
  }
  return read_file_fields(j, s, c);
}

// `out` takes the value of `r`, or keeps its own when `r` is an error (returned).
template <class T>
Status assign(T& out, Result<T> r) {
  if (!r.ok()) return Status(r.error());
  out = std::move(r).value();
  return ok_status();
}

Status read_extra_blocks(object j, FileSummary& s, const Ctx& c) {
  std::optional<element> blocks = Ctx::find(j, "extra_blocks");
  if (!blocks || blocks->type() != element_type::ARRAY) return ok_status();
  for (element b : array_of(*blocks)) {
    if (b.type() != element_type::OBJECT) continue;
    object o = object_of(b);
    ExtraBlock e;
    Status st = ok_status();
    for_each_block_field(e, [&](auto row, auto& v) {
      constexpr BlockField d = kBlockFields[row];
      std::optional<element> x = Ctx::find(o, d.json_key);
      if (!st.ok() || !x) return;  // every key is optional: absent, the member keeps its default
      if constexpr (d.kind == BlockFieldKind::kText) st = assign(v, as_string(*x, d.json_key, c));
      else if constexpr (d.kind == BlockFieldKind::kU32) st = assign(v, as_u32(*x, d.json_key, c));
      else if constexpr (d.kind == BlockFieldKind::kU64) st = assign(v, as_u64(*x, d.json_key, c));
      else static_assert(row() != row(), "a block field kind the JSON reader cannot read");
    });
    MSIT_TRY(st);
    s.extra_blocks.push_back(std::move(e));
  }
  return ok_status();
}

Result<FileSummary> parse_summary(element root, const Ctx& c) {
  if (root.type() != element_type::OBJECT) return c.fail("not a JSON object");
  object j = object_of(root);
  FileSummary s;
  MSIT_TRY(read_header(j, s, c));
  MSIT_ASSIGN_OR_RETURN(element tensors, c.member(j, "tensors"));
  if (tensors.type() != element_type::ARRAY) return c.fail("\"tensors\" must be an array");
  array ta = array_of(tensors);
  s.tensors.reserve(ta.size());
  for (element t : ta) {
    MSIT_ASSIGN_OR_RETURN(TensorSummary ts, tensor_from(t, c));
    s.tensors.push_back(std::move(ts));
  }
  MSIT_TRY(read_extra_blocks(j, s, c));
  return s;
}

// `text` must be readable for SIMDJSON_PADDING bytes past its end when !copy.
Result<FileSummary> parse_text(const char* text, size_t size, bool copy, const std::string& path) {
  thread_local simdjson::dom::parser parser;
  Ctx c{path};
  element root;
  Result<FileSummary> out = [&]() -> Result<FileSummary> {
    if (simdjson::error_code e = parser.parse(text, size, copy).get(root)) return c.fail(json_problem(e));
    return parse_summary(root, c);
  }();
  if (parser.capacity() > kKeepParserBytes) parser = simdjson::dom::parser();
  return out;
}

}  // namespace

Result<FileSummary> summary_from_json(std::string_view text, const std::string& path) {
  // The caller's text has no padding: simdjson copies it into the parser's reused buffer.
  return parse_text(text.data(), text.size(), true, path);
}

const size_t kSummaryMaxBytes = kMaxSummaryBytes;
const size_t kSummaryParsePadding = simdjson::SIMDJSON_PADDING;

Result<FileSummary> summary_from_padded_json(std::string_view text, const std::string& path) {
  return parse_text(text.data(), text.size(), false, path);
}

Result<FileSummary> read_summary_file(const std::string& path) {
  thread_local std::string text;  // reused: one allocation per thread, not per file
  size_t size = 0;
  MSIT_TRY(read_small_file_into(path, kMaxSummaryBytes, simdjson::SIMDJSON_PADDING, text, size));
  auto s = parse_text(text.data(), size, false, path);
  if (text.capacity() > kKeepParserBytes) std::string().swap(text);  // don't pin a rare big file
  return s;
}

}  // namespace msit
