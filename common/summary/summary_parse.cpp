// Reading summary JSON: every key summary.md requires must be there with the right type;
// unknown keys are ignored so newer writers stay readable.
#include <charconv>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/io/file.h"
#include "common/summary/summary.h"

namespace msit {
namespace {

using nlohmann::json;

// Summaries are small (a sketch is 128 doubles); anything far larger is not ours.
constexpr size_t kMaxSummaryBytes = 64u << 20;

struct Ctx {
  const std::string& path;
  Error fail(const std::string& what) const { return make_error(path, "summary", what); }
};

Result<const json*> member(const json& obj, const char* key, const Ctx& c) {
  auto it = obj.find(key);
  if (it == obj.end()) return c.fail(std::string("missing key \"") + key + "\"");
  return &*it;
}

std::optional<double> opt_number(const json& v) {
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

Result<double> element_from_json(const json& v, const Ctx& c) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return c.fail("bad element in \"values\": " + v.dump());
}

Status read_extreme(const json& t, const char* key, bool is_min, TensorStats& s, const Ctx& c) {
  MSIT_ASSIGN_OR_RETURN(const json* v, member(t, key, c));
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    (is_min ? s.min_u64 : s.max_u64) = u;
    (is_min ? s.min : s.max) = static_cast<double>(u);
  } else if (v->is_number_integer()) {
    int64_t i = v->get<int64_t>();
    (is_min ? s.min_i64 : s.max_i64) = i;
    (is_min ? s.min : s.max) = static_cast<double>(i);
  } else if (v->is_number()) {
    (is_min ? s.min : s.max) = v->get<double>();
  } else if (!v->is_null()) {
    return c.fail(std::string("\"") + key + "\" must be a number or null");
  }
  return ok_status();
}

Result<Sketch> sketch_from_json(const json& j, const Ctx& c) {
  if (!j.is_object() || j.value("kind", "") != "countsketch-rot-v1")
    return c.fail("unknown sketch kind (expected countsketch-rot-v1)");
  Sketch sk;
  sk.width = j.value("width", 0u);
  std::string seed = j.value("seed", "");
  auto [end, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), sk.seed, 16);
  if (seed.size() != 16 || ec != std::errc() || end != seed.data() + seed.size())
    return c.fail("sketch seed must be 16 hex digits");
  const json& vals = j.value("values", json::array());
  if (!vals.is_array() || vals.size() != sk.width || sk.width == 0 || (sk.width & (sk.width - 1)))
    return c.fail("sketch width and values disagree or width is not a power of two");
  for (const auto& v : vals) {
    if (!v.is_number()) return c.fail("sketch values must be numbers");
    sk.values.push_back(v.get<double>());
  }
  return sk;
}

template <class T>
Result<T> get_as(const json& obj, const char* key, const Ctx& c) {
  MSIT_ASSIGN_OR_RETURN(const json* v, member(obj, key, c));
  try {
    return v->get<T>();
  } catch (const json::exception&) {
    return c.fail(std::string("key \"") + key + "\" has the wrong type");
  }
}

Status read_stats(const json& t, TensorStats& s, const Ctx& c) {
  MSIT_TRY(read_extreme(t, "min", true, s, c));
  MSIT_TRY(read_extreme(t, "max", false, s, c));
  MSIT_ASSIGN_OR_RETURN(const json* mean, member(t, "mean", c));
  MSIT_ASSIGN_OR_RETURN(const json* std_v, member(t, "std", c));
  MSIT_ASSIGN_OR_RETURN(const json* abs_max, member(t, "abs_max", c));
  s.mean = opt_number(*mean);
  s.std = opt_number(*std_v);
  s.abs_max = opt_number(*abs_max);
  MSIT_ASSIGN_OR_RETURN(s.l2norm, get_as<double>(t, "l2norm", c));
  MSIT_ASSIGN_OR_RETURN(s.nan_count, get_as<uint64_t>(t, "nan_count", c));
  MSIT_ASSIGN_OR_RETURN(s.posinf_count, get_as<uint64_t>(t, "posinf_count", c));
  MSIT_ASSIGN_OR_RETURN(s.neginf_count, get_as<uint64_t>(t, "neginf_count", c));
  MSIT_ASSIGN_OR_RETURN(s.zero_count, get_as<uint64_t>(t, "zero_count", c));
  if (auto it = t.find("values"); it != t.end()) {
    if (!it->is_array()) return c.fail("\"values\" must be an array");
    std::vector<double> vals;
    for (const auto& v : *it) {
      MSIT_ASSIGN_OR_RETURN(double x, element_from_json(v, c));
      vals.push_back(x);
    }
    s.values = std::move(vals);
  }
  if (auto it = t.find("sketch"); it != t.end()) {
    MSIT_ASSIGN_OR_RETURN(s.sketch, sketch_from_json(*it, c));
  }
  return ok_status();
}

Result<TensorSummary> tensor_from_json(const json& t, const Ctx& c) {
  if (!t.is_object()) return c.fail("tensor entry is not an object");
  TensorSummary ts;
  MSIT_ASSIGN_OR_RETURN(ts.role, get_as<std::string>(t, "role", c));
  MSIT_ASSIGN_OR_RETURN(ts.index, get_as<uint32_t>(t, "index", c));
  if (t.contains("sub_index")) { MSIT_ASSIGN_OR_RETURN(ts.sub_index, get_as<uint32_t>(t, "sub_index", c)); }
  MSIT_ASSIGN_OR_RETURN(ts.dtype, get_as<std::string>(t, "dtype", c));
  MSIT_ASSIGN_OR_RETURN(ts.shape, get_as<std::vector<uint64_t>>(t, "shape", c));
  MSIT_ASSIGN_OR_RETURN(ts.format, get_as<std::string>(t, "format", c));
  MSIT_ASSIGN_OR_RETURN(ts.original_shape, get_as<std::vector<uint64_t>>(t, "original_shape", c));
  MSIT_ASSIGN_OR_RETURN(ts.count, get_as<uint64_t>(t, "count", c));
  MSIT_ASSIGN_OR_RETURN(ts.padding_included, get_as<bool>(t, "padding_included", c));
  MSIT_ASSIGN_OR_RETURN(ts.xxh3_64, get_as<std::string>(t, "xxh3_64", c));
  ts.stats_available = t.value("stats_available", true);
  ts.note = t.value("note", "");
  MSIT_TRY(read_stats(t, ts.stats, c));
  ts.stats.count = ts.count;
  return ts;
}

Status read_header(const json& j, FileSummary& s, const Ctx& c) {
  if (!j.is_object()) return c.fail("not a JSON object");
  if (j.value("schema", "") != kSummarySchema) return c.fail("not an msit-compact summary (schema key)");
  MSIT_ASSIGN_OR_RETURN(int version, get_as<int>(j, "version", c));
  if (version != kSummaryVersion) {
    return c.fail("summary version " + std::to_string(version) + " is not supported (this build reads version " +
                  std::to_string(kSummaryVersion) + ")");
  }
  MSIT_ASSIGN_OR_RETURN(const json* src, member(j, "source", c));
  MSIT_ASSIGN_OR_RETURN(s.source_name, get_as<std::string>(*src, "name", c));
  MSIT_ASSIGN_OR_RETURN(s.source_kind, get_as<std::string>(*src, "kind", c));
  MSIT_ASSIGN_OR_RETURN(s.source_size, get_as<uint64_t>(*src, "size_bytes", c));
  MSIT_ASSIGN_OR_RETURN(s.source_mtime_ns, get_as<int64_t>(*src, "mtime_ns", c));
  if (auto it = j.find("op"); it != j.end() && it->is_object()) {
    OpInfo op;
    op.type = it->value("type", "");
    op.name = it->value("name", "");
    op.task_id = it->value("task_id", "");
    op.stream_id = it->value("stream_id", "");
    op.timestamp = it->value("timestamp", "");
    op.dump_op_name = it->value("dump_op_name", "");
    s.op = std::move(op);
  }
  s.created_by = j.value("created_by", "");
  return ok_status();
}

Result<FileSummary> parse_summary(const json& j, const Ctx& c) {
  FileSummary s;
  MSIT_TRY(read_header(j, s, c));
  MSIT_ASSIGN_OR_RETURN(const json* tensors, member(j, "tensors", c));
  if (!tensors->is_array()) return c.fail("\"tensors\" must be an array");
  for (const auto& t : *tensors) {
    MSIT_ASSIGN_OR_RETURN(TensorSummary ts, tensor_from_json(t, c));
    s.tensors.push_back(std::move(ts));
  }
  if (auto it = j.find("extra_blocks"); it != j.end() && it->is_array()) {
    for (const auto& b : *it) {
      if (!b.is_object()) continue;
      s.extra_blocks.push_back({b.value("role", ""), b.value("index", 0u), b.value("size_bytes", uint64_t{0}),
                                b.value("xxh3_64", "")});
    }
  }
  return s;
}

}  // namespace

Result<FileSummary> summary_from_json(std::string_view text, const std::string& path) {
  Ctx c{path};
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return c.fail("not valid JSON (truncated or corrupt summary)");
  // json::value() throws on a type mismatch; keep exceptions from leaving the library.
  try {
    return parse_summary(j, c);
  } catch (const json::exception& e) {
    return c.fail(std::string("malformed summary: ") + e.what());
  }
}

Result<FileSummary> read_summary_file(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::string text, read_small_file(path, kMaxSummaryBytes));
  return summary_from_json(text, path);
}

}  // namespace msit
