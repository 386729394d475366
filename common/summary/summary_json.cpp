// JSON form of summaries (docs/formats/summary.md): writing with every required key, reading tolerantly.
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/io/file.h"
#include "common/summary/summary.h"

namespace msit {
namespace {

using nlohmann::json;

json number_or_null(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

json element_value(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

json extreme(const TensorStats& s, bool want_min) {
  if (want_min) {
    if (s.min_i64) return *s.min_i64;
    if (s.min_u64) return *s.min_u64;
    return number_or_null(s.min);
  }
  if (s.max_i64) return *s.max_i64;
  if (s.max_u64) return *s.max_u64;
  return number_or_null(s.max);
}

json tensor_to_json(const TensorSummary& t) {
  const TensorStats& s = t.stats;
  json j;
  j["role"] = t.role;
  j["index"] = t.index;
  if (t.sub_index) j["sub_index"] = *t.sub_index;
  j["dtype"] = t.dtype;
  j["shape"] = t.shape;
  j["format"] = t.format;
  j["original_shape"] = t.original_shape;
  j["count"] = t.count;
  j["padding_included"] = t.padding_included;
  j["min"] = extreme(s, true);
  j["max"] = extreme(s, false);
  j["mean"] = number_or_null(s.mean);
  j["l2norm"] = std::isfinite(s.l2norm) ? s.l2norm : 0.0;
  j["std"] = number_or_null(s.std);
  j["abs_max"] = number_or_null(s.abs_max);
  j["nan_count"] = s.nan_count;
  j["posinf_count"] = s.posinf_count;
  j["neginf_count"] = s.neginf_count;
  j["zero_count"] = s.zero_count;
  j["xxh3_64"] = t.xxh3_64;
  if (!t.stats_available) j["stats_available"] = false;
  if (!t.note.empty()) j["note"] = t.note;
  if (s.values) {
    json vals = json::array();
    for (double x : *s.values) vals.push_back(element_value(x));
    j["values"] = std::move(vals);
  }
  if (s.sketch) {
    j["sketch"] = {{"kind", "countsketch-rot-v1"},
                   {"width", s.sketch->width},
                   {"seed", hex16(s.sketch->seed)},
                   {"values", s.sketch->values}};
  }
  return j;
}

}  // namespace

std::string created_by_string() { return std::string("msit-compact ") + MSIT_VERSION; }

std::string summary_to_json(const FileSummary& s) {
  json j;
  j["schema"] = kSummarySchema;
  j["version"] = kSummaryVersion;
  j["source"] = {
      {"name", s.source_name}, {"kind", s.source_kind}, {"size_bytes", s.source_size}, {"mtime_ns", s.source_mtime_ns}};
  if (s.op) {
    j["op"] = {{"type", s.op->type},
               {"name", s.op->name},
               {"task_id", s.op->task_id},
               {"stream_id", s.op->stream_id},
               {"timestamp", s.op->timestamp}};
    if (!s.op->dump_op_name.empty()) j["op"]["dump_op_name"] = s.op->dump_op_name;
  }
  json tensors = json::array();
  for (const auto& t : s.tensors) tensors.push_back(tensor_to_json(t));
  j["tensors"] = std::move(tensors);
  if (!s.extra_blocks.empty()) {
    json blocks = json::array();
    for (const auto& b : s.extra_blocks) {
      blocks.push_back({{"role", b.role}, {"index", b.index}, {"size_bytes", b.size_bytes}, {"xxh3_64", b.xxh3_64}});
    }
    j["extra_blocks"] = std::move(blocks);
  }
  j["created_by"] = s.created_by;
  // Replace, not throw, on odd bytes in names (op names come from the dump's header).
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace msit
