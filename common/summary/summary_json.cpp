// JSON form of summaries (docs/formats/summary.md): writing with every required key, reading tolerantly.
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/io/file.h"
#include "common/summary/block_fields.h"
#include "common/summary/file_fields.h"
#include "common/summary/summary.h"
#include "common/summary/tensor_fields.h"

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

json extreme(const ConstExtremeRef& e) {
  if (e.i64) return *e.i64;
  if (e.u64) return *e.u64;
  return number_or_null(e.real);
}

json sketch_json(const Sketch& sk) {
  return {{"kind", "countsketch-rot-v1"}, {"width", sk.width}, {"seed", hex16(sk.seed)}, {"values", sk.values}};
}

// Whether a JsonRule::kOptional field differs from its default and so is written: a value that
// is there, a non-empty note, a flag that is false (its default is true).
template <FieldKind kKind, class V>
bool present(const V& v) {
  if constexpr (kKind == FieldKind::kFlag) return !v;
  else if constexpr (kKind == FieldKind::kOptText) return !v.empty();
  else return v.has_value();
}

// The JSON value of row I of kTensorFields (tensor_fields.h).
template <size_t I, class V>
json field_json(const V& v) {
  constexpr FieldKind kind = kTensorFields[I].kind;
  if constexpr (kind == FieldKind::kOptU32) return *v;
  else if constexpr (kind == FieldKind::kOptReal) return number_or_null(v);
  else if constexpr (kind == FieldKind::kReal) return std::isfinite(v) ? v : 0.0;
  else if constexpr (kind == FieldKind::kExtreme) return extreme(v);
  else if constexpr (kind == FieldKind::kElements) {
    json vals = json::array();
    for (double x : *v) vals.push_back(element_value(x));
    return vals;
  } else if constexpr (kind == FieldKind::kSketch) return sketch_json(*v);
  else if constexpr (kind == FieldKind::kText || kind == FieldKind::kOptText || kind == FieldKind::kU32 ||
                     kind == FieldKind::kDims || kind == FieldKind::kU64 || kind == FieldKind::kFlag)
    return v;
  else static_assert(I != I, "a field kind the JSON form cannot write");
}

json tensor_to_json(const TensorSummary& t) {
  json j;
  for_each_tensor_field(t, [&](auto row, const auto& v) {
    constexpr TensorField d = kTensorFields[row];
    if constexpr (d.json == JsonRule::kRequired) j[d.json_key] = field_json<row()>(v);
    else if constexpr (d.json == JsonRule::kOptional) {
      if (present<d.kind>(v)) j[d.json_key] = field_json<row()>(v);
    }
  });
  return j;
}

}  // namespace

std::string created_by_string() { return std::string("msit-compact ") + MSIT_VERSION; }

std::string summary_to_json(const FileSummary& s) {
  json j;
  j["schema"] = kSummarySchema;
  j["version"] = kSummaryVersion;
  json& source = j["source"] = json::object();
  for_each_file_field(s, [&](auto row, const auto& v) {
    constexpr FileField d = kFileFields[row];
    if constexpr (d.json_place == JsonPlace::kSource) source[d.json_key] = v;
    else if constexpr (d.json_place == JsonPlace::kTop) j[d.json_key] = v;
    else if constexpr (d.json_place == JsonPlace::kOp) {
      if (!s.op) return;
      const std::string& x = (*s.op).*v;
      if constexpr (d.kind == FileFieldKind::kOpText) j["op"][d.json_key] = x;
      else if constexpr (d.kind == FileFieldKind::kOpOptText) {
        if (!x.empty()) j["op"][d.json_key] = x;
      } else static_assert(row() != row(), "a file field kind the JSON form cannot write");
    }
  });
  json tensors = json::array();
  for (const auto& t : s.tensors) tensors.push_back(tensor_to_json(t));
  j["tensors"] = std::move(tensors);
  if (!s.extra_blocks.empty()) {
    json blocks = json::array();
    for (const auto& b : s.extra_blocks) {
      json o = json::object();
      for_each_block_field(b, [&](auto row, const auto& v) { o[std::string(kBlockFields[row].json_key)] = v; });
      blocks.push_back(std::move(o));
    }
    j["extra_blocks"] = std::move(blocks);
  }
  // Replace, not throw, on odd bytes in names (op names come from the dump's header).
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace msit
