// One dump.json entry as leaves (docs/formats/msprobe.md §5, §6): its groups (input_args,
// input_kwargs, output, parameters; backward input/output; parameters_grad; a debug value),
// nested lists and dicts flattened into paths, tensor records, scalars and nulls.
#include <string>

#include "common/base/printable.h"
#include "common/formats/msprobe_internal.h"

namespace msit::msprobe_internal {
namespace {

struct Walk {
  const std::string& path;
  const MsprobeEntry& entry;
  std::vector<MsprobeLeaf>& out;

  Error bad(const std::string& what) const {
    return make_error(path, Stage::kParse, "entry '" + printable(entry.name) + "': " + what);
  }
};

MsprobeStat stat_of(const JsonValue* v) {
  MsprobeStat s;
  if (!v) return s;
  switch (v->kind) {
    case JsonToken::kNull: s.kind = MsprobeStat::Kind::kNull; break;
    case JsonToken::kNumber:
      s.kind = MsprobeStat::Kind::kNumber;
      s.number = v->number;
      s.is_integer = v->is_integer;
      break;
    case JsonToken::kTrue:
    case JsonToken::kFalse:
      s.kind = MsprobeStat::Kind::kBool;
      s.flag = v->kind == JsonToken::kTrue;
      s.number = s.flag ? 1 : 0;
      break;
    default:
      s.kind = MsprobeStat::Kind::kText;
      s.text = v->kind == JsonToken::kString ? v->text : json_text(*v);
      break;
  }
  return s;
}

bool all_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

void set_checksum(const JsonValue* v, MsprobeTensor& t) {
  if (!v) return;
  if (v->kind == JsonToken::kNull) {
    t.checksum = MsprobeChecksum::kNull;
    return;
  }
  t.checksum_text = v->kind == JsonToken::kString ? v->text : json_text(*v);
  const std::string_view s = t.checksum_text;
  if (s.size() == 8 && all_hex(s)) {
    t.checksum = MsprobeChecksum::kCrc32;
  } else if (s.size() == 18 && s.starts_with("0x") && all_hex(s.substr(2))) {
    t.checksum = MsprobeChecksum::kXor;
  } else {
    t.checksum = MsprobeChecksum::kOther;
  }
}

Status decode_tensor(const Walk& w, const JsonValue& v, MsprobeTensor& t) {
  t.type = v.find("type")->text;
  t.dtype_text = v.find("dtype")->text;
  t.dtype = msprobe_dtype(t.dtype_text);
  uint64_t count = 1;
  bool overflow = false;
  for (const JsonValue& d : v.find("shape")->items) {
    if (d.kind != JsonToken::kNumber || !d.is_integer || d.integer < 0)
      return w.bad("a tensor's shape holds '" + printable(json_text(d)) + "', not a non-negative integer");
    const auto dim = static_cast<uint64_t>(d.integer);
    t.shape.push_back(dim);
    if (__builtin_mul_overflow(count, dim, &count)) overflow = true;
  }
  if (!overflow) t.count = count;
  t.max = stat_of(v.find("Max"));
  t.min = stat_of(v.find("Min"));
  t.mean = stat_of(v.find("Mean"));
  t.norm = stat_of(v.find("Norm"));
  if (const JsonValue* rg = v.find("requires_grad");
      rg && (rg->kind == JsonToken::kTrue || rg->kind == JsonToken::kFalse))
    t.requires_grad = rg->kind == JsonToken::kTrue;
  if (const JsonValue* dn = v.find("data_name"); dn && dn->kind != JsonToken::kNull) {
    if (dn->kind != JsonToken::kString || !is_safe_msprobe_data_name(dn->text))
      return w.bad("data_name '" + printable(json_text(*dn)) +
                   "' is not a file name inside the tensor directory; the entry is refused");
    t.data_name = dn->text;
  }
  set_checksum(v.find("md5"), t);
  return ok_status();
}

void decode_scalar(const JsonValue& v, const JsonValue* type, MsprobeScalar& s) {
  const JsonValue* value = &v;
  if (type) {
    s.type = type->text;
    value = v.find("value");
  }
  if (!value) {
    s.value_text = json_text(v);  // a typed object without "value": all of it
    return;
  }
  s.value_text = value->kind == JsonToken::kString ? value->text : json_text(*value);
  if (value->kind == JsonToken::kNumber) s.number = value->number;
  if (value->kind == JsonToken::kTrue || value->kind == JsonToken::kFalse) s.number = value->kind == JsonToken::kTrue;
}

bool is_tensor_record(const JsonValue& v) {
  const JsonValue* type = v.find("type");
  const JsonValue* dtype = v.find("dtype");
  const JsonValue* shape = v.find("shape");
  return type && type->kind == JsonToken::kString && dtype && dtype->kind == JsonToken::kString && shape &&
         shape->is_array();
}

Status walk(const Walk& w, const JsonValue& v, MsprobeCategory cat, std::vector<std::string>& path) {
  auto leaf = [&](MsprobeLeafKind kind) -> MsprobeLeaf& {
    MsprobeLeaf& l = w.out.emplace_back();
    l.category = cat;
    l.path = path;
    l.kind = kind;
    return l;
  };
  if (v.kind == JsonToken::kNull) {
    leaf(MsprobeLeafKind::kNull);
    return ok_status();
  }
  if (v.is_array() || (v.is_object() && !v.find("type"))) {
    for (size_t i = 0; i < v.items.size(); ++i) {
      path.push_back(v.is_array() ? std::to_string(i) : v.keys[i]);
      MSIT_TRY(walk(w, v.items[i], cat, path));
      path.pop_back();
    }
    return ok_status();
  }
  if (v.is_object() && is_tensor_record(v)) return decode_tensor(w, v, leaf(MsprobeLeafKind::kTensor).tensor);
  const JsonValue* type = v.is_object() ? v.find("type") : nullptr;
  if (type && type->kind != JsonToken::kString) type = nullptr;
  decode_scalar(v, type, leaf(MsprobeLeafKind::kScalar).scalar);
  return ok_status();
}

bool is_bool(const JsonValue& v) { return v.kind == JsonToken::kTrue || v.kind == JsonToken::kFalse; }

}  // namespace

Status decode_entry(const JsonValue& body, const std::string& path, MsprobeEntry& entry) {
  Walk w{path, entry, entry.leaves};
  std::vector<std::string> at;
  const MsprobeEntryKind kind = entry.parsed ? entry.parsed->kind : MsprobeEntryKind::kApi;
  if (kind == MsprobeEntryKind::kDebug) return walk(w, body, MsprobeCategory::kDebug, at);
  if (body.kind == JsonToken::kNull) return ok_status();
  if (!body.is_object()) return w.bad("the entry is not a JSON object");
  for (size_t i = 0; i < body.items.size(); ++i) {
    const std::string& key = body.keys[i];
    const JsonValue& v = body.items[i];
    if (kind == MsprobeEntryKind::kParametersGrad) {
      // {"weight": [record], ...}: each value a one-element list (§5), unwrapped.
      at.push_back(key);
      MSIT_TRY(walk(w, v.is_array() && v.items.size() == 1 ? v.items[0] : v, MsprobeCategory::kParameterGrad, at));
      at.pop_back();
      continue;
    }
    if (key == "is_recompute" && is_bool(v)) {
      entry.is_recompute = v.kind == JsonToken::kTrue;
    } else if (key == "is_nan" && is_bool(v)) {
      entry.is_nan = v.kind == JsonToken::kTrue;
    } else if (key == "input_args" || key == "input") {
      MSIT_TRY(walk(w, v, MsprobeCategory::kInput, at));
    } else if (key == "input_kwargs") {
      MSIT_TRY(walk(w, v, MsprobeCategory::kKwargs, at));
    } else if (key == "output") {
      MSIT_TRY(walk(w, v, MsprobeCategory::kOutput, at));
    } else if (key == "parameters") {
      MSIT_TRY(walk(w, v, MsprobeCategory::kParameters, at));
    }
  }
  return ok_status();
}

}  // namespace msit::msprobe_internal
