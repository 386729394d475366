// Checks a rich summary against the generator's manifest: exact counts and extremes, tight
// relative tolerance on accumulated statistics, exact values and sketch buckets.
#include <cmath>

#include "tests/tools/dumpgen/verify_check.h"

namespace dumpgen {

namespace {

std::string show(const nlohmann::json& j) { return j.is_null() ? "null" : j.dump(); }

double as_double(const nlohmann::json& j) {
  if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s == "nan") return NAN;
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
  }
  return j.get<double>();
}

bool is_num(const nlohmann::json& j) { return j.is_number() || j.is_boolean(); }

std::string text_of(const nlohmann::json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

}  // namespace

void Checker::eq(const std::string& field, const nlohmann::json& want, const nlohmann::json& got) {
  if (want != got) fail(field, "expected " + show(want) + ", got " + show(got));
}

void Checker::exact_number(const std::string& field, const nlohmann::json& want, const nlohmann::json& got) {
  if (want.is_null() || got.is_null() || !is_num(got)) {
    if (!(want.is_null() && got.is_null())) fail(field, "expected " + show(want) + ", got " + show(got));
    return;
  }
  bool ok;
  if (want.is_number_integer() && got.is_number_integer()) {
    // Compare 64-bit integers exactly, whichever signedness nlohmann picked.
    bool wneg = want.is_number_unsigned() ? false : want.get<int64_t>() < 0;
    bool gneg = got.is_number_unsigned() ? false : got.get<int64_t>() < 0;
    ok = wneg == gneg &&
         (wneg ? want.get<int64_t>() == got.get<int64_t>() : want.get<uint64_t>() == got.get<uint64_t>());
  } else {
    ok = as_double(want) == as_double(got);
  }
  if (!ok) fail(field, "expected " + show(want) + ", got " + show(got));
}

void Checker::close_number(const std::string& field, const nlohmann::json& want, const nlohmann::json& got, double rel,
                           double abs_floor) {
  if (want.is_null() || got.is_null() || !is_num(got)) {
    if (!(want.is_null() && got.is_null())) fail(field, "expected " + show(want) + ", got " + show(got));
    return;
  }
  double w = as_double(want), g = as_double(got);
  double tol = rel * std::max(std::fabs(w), std::fabs(g)) + abs_floor;
  if (!(std::fabs(w - g) <= tol)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "expected %.17g, got %.17g (diff %.3g > tol %.3g)", w, g, std::fabs(w - g), tol);
    fail(field, buf);
  }
}

namespace {

void check_values(Checker& c, const std::string& f, const nlohmann::json& want, const nlohmann::json& got) {
  if (!got.is_array() || got.size() != want.size()) {
    c.fail(f + ".values", "expected " + std::to_string(want.size()) + " values, got " +
                              (got.is_array() ? std::to_string(got.size()) : show(got)));
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    double w = as_double(want[i]), g = is_num(got[i]) || got[i].is_string() ? as_double(got[i]) : NAN;
    bool same = (std::isnan(w) && std::isnan(g)) || w == g;
    if (!same) {
      c.fail(f + ".values[" + std::to_string(i) + "]", "expected " + show(want[i]) + ", got " + show(got[i]));
      return;
    }
  }
}

void check_sketch(Checker& c, const std::string& f, const nlohmann::json& want, const nlohmann::json& got, double l2) {
  if (!got.is_object()) {
    c.fail(f + ".sketch", "missing");
    return;
  }
  if (got.value("kind", "") != "countsketch-rot-v1" || got.value("width", 0) != 128 ||
      got.value("seed", "") != "6d7369742d636d70") {
    return;  // a non-default sketch cannot be checked against the manifest
  }
  const auto& vals = got["values"];
  if (!vals.is_array() || vals.size() != want.size()) {
    c.fail(f + ".sketch.values", "wrong length");
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    size_t before = c.errors.size();
    c.close_number(f + ".sketch.values[" + std::to_string(i) + "]", want[i], vals[i], c.sketch_rel, 1e-12 * l2);
    if (c.errors.size() > before) return;
  }
}

void check_tensor(Checker& c, const std::string& f, const nlohmann::json& w, const nlohmann::json& g) {
  for (const char* k : {"role", "index", "dtype", "shape", "format", "original_shape"}) {
    c.eq(f + "." + k, w[k], g.value(k, nlohmann::json()));
  }
  if (w.contains("sub_index")) c.eq(f + ".sub_index", w["sub_index"], g.value("sub_index", nlohmann::json()));
  if (g.contains("xxh3_64")) c.eq(f + ".xxh3_64", w["xxh3_64"], g["xxh3_64"]);
  else c.fail(f + ".xxh3_64", "missing");
  bool padding = g.value("padding_included", false);
  if (padding && !w["device_format"].get<bool>()) c.fail(f + ".padding_included", "true for a plain format");
  if (padding) {
    ++c.skipped_padding;
    return;
  }
  c.eq(f + ".count", w["count"], g.value("count", nlohmann::json()));
  if (!w["stats"].get<bool>()) {
    ++c.skipped_nostats;
    return;
  }
  ++c.tensors_checked;
  if (w.value("partial", false)) {  // `stream` manifests: count, nan_count, min and max only
    c.eq(f + ".nan_count", w["nan_count"], g.value("nan_count", nlohmann::json()));
    for (const char* k : {"min", "max"}) c.exact_number(f + "." + k, w[k], g.value(k, nlohmann::json()));
    return;
  }
  for (const char* k : {"nan_count", "posinf_count", "neginf_count", "zero_count"}) {
    c.eq(f + "." + k, w[k], g.value(k, nlohmann::json()));
  }
  for (const char* k : {"min", "max"}) c.exact_number(f + "." + k, w[k], g.value(k, nlohmann::json()));
  double l2 = w["l2norm"].get<double>();
  double am = w["abs_max"].is_null() ? 0.0 : w["abs_max"].get<double>();
  // mean may cancel to ~0; allow an absolute floor tied to the data's magnitude.
  c.close_number(f + ".mean", w["mean"], g.value("mean", nlohmann::json()), 1e-9, 1e-12 * am);
  // std of constant data is 0 exactly; rounding noise relative to the data's magnitude is fine.
  c.close_number(f + ".std", w["std"], g.value("std", nlohmann::json()), 1e-9, 1e-12 * am);
  for (const char* k : {"l2norm", "abs_max"}) {
    c.close_number(f + "." + k, w[k], g.value(k, nlohmann::json()), 1e-9, 0);
  }
  if (w.contains("values")) check_values(c, f, w["values"], g.value("values", nlohmann::json()));
  if (w.contains("sketch")) check_sketch(c, f, w["sketch"], g.value("sketch", nlohmann::json()), l2);
}

}  // namespace

void check_rich_summary(Checker& c, const nlohmann::json& e, const nlohmann::json& s) {
  c.eq("schema", "msit-compact/summary", s.value("schema", nlohmann::json()));
  c.eq("version", 1, s.value("version", nlohmann::json()));
  const auto& src = s.value("source", nlohmann::json::object());
  std::string path = e["path"].get<std::string>();
  c.eq("source.name", path.substr(path.rfind('/') + 1), src.value("name", nlohmann::json()));
  c.eq("source.kind", e["kind"], src.value("kind", nlohmann::json()));
  c.eq("source.size_bytes", e["size"], src.value("size_bytes", nlohmann::json()));
  if (e.contains("op")) {
    const auto& op = s.value("op", nlohmann::json::object());
    for (const char* k : {"type", "name", "task_id", "stream_id", "timestamp"}) {
      std::string got = op.contains(k) ? text_of(op[k]) : "(missing)";
      if (got != e["op"][k].get<std::string>())
        c.fail(std::string("op.") + k, "expected " + e["op"][k].get<std::string>() + ", got " + got);
    }
  }
  const auto& want = e["tensors"];
  const auto& got = s.value("tensors", nlohmann::json::array());
  if (got.size() != want.size()) {
    c.fail("tensors", "expected " + std::to_string(want.size()) + " tensors, got " + std::to_string(got.size()));
    return;
  }
  for (size_t i = 0; i < want.size(); ++i) check_tensor(c, "tensors[" + std::to_string(i) + "]", want[i], got[i]);
}

}  // namespace dumpgen
