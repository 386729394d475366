// Checks msit-compatible `_min_max.npy` / `_min_max.npz` files with a hand-written npy and zip
// reader (docs/formats/summary.md §7, docs/formats/report.md §8).
#include <cmath>
#include <cstring>
#include <optional>

#include "tests/tools/dumpgen/gen_dtype.h"
#include "tests/tools/dumpgen/verify_check.h"

namespace dumpgen {

namespace {

struct Npy {
  std::string descr;
  std::vector<uint64_t> shape;
  std::vector<double> values;
};

uint64_t le(const std::string& b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[off + i])) << (8 * i);
  return v;
}

std::optional<Npy> parse_npy(const std::string& b, std::string& err) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) {
    err = "bad npy magic";
    return std::nullopt;
  }
  int major = b[6];
  size_t hl = major == 1 ? le(b, 8, 2) : le(b, 8, 4);
  size_t start = major == 1 ? 10 : 12;
  if (start + hl > b.size()) {
    err = "npy header past end";
    return std::nullopt;
  }
  std::string h = b.substr(start, hl);
  Npy n;
  size_t d = h.find("'descr': '");
  size_t s = h.find("'shape': (");
  if (d == std::string::npos || s == std::string::npos) {
    err = "npy header keys";
    return std::nullopt;
  }
  n.descr = h.substr(d + 10, h.find('\'', d + 10) - d - 10);
  std::string dims = h.substr(s + 10, h.find(')', s) - s - 10);
  for (size_t p = 0; p < dims.size();) {
    size_t q = dims.find(',', p);
    std::string tok = dims.substr(p, q == std::string::npos ? std::string::npos : q - p);
    if (tok.find_first_not_of(' ') != std::string::npos) n.shape.push_back(std::stoull(tok));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  const DTypeSpec* dt = nullptr;
  for (const auto& x : all_dtypes()) {
    if (x.npy_descr == n.descr) dt = &x;
  }
  if (!dt || dt->kind == Kind::kComplex) {
    err = "unsupported descr " + n.descr;
    return std::nullopt;
  }
  uint64_t count = 1;
  for (uint64_t x : n.shape) count *= x;
  size_t data = start + hl;
  if (data + count * dt->bytes > b.size()) {
    err = "npy data short";
    return std::nullopt;
  }
  for (uint64_t i = 0; i < count; ++i) {
    n.values.push_back(
        decode_value(*dt, load_code(*dt, reinterpret_cast<const uint8_t*>(b.data()) + data + i * dt->bytes)));
  }
  return n;
}

// Stored (method 0) members of a zip file, by name.
std::optional<std::string> zip_member(const std::string& z, const std::string& name, std::string& err) {
  if (z.size() < 22) {
    err = "zip too small";
    return std::nullopt;
  }
  size_t eocd = std::string::npos;
  for (size_t i = z.size() - 22 + 1; i-- > 0;) {
    if (le(z, i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string::npos) {
    err = "no zip end record";
    return std::nullopt;
  }
  uint64_t entries = le(z, eocd + 10, 2), off = le(z, eocd + 16, 4);
  for (uint64_t e = 0; e < entries && off + 46 <= z.size(); ++e) {
    if (le(z, off, 4) != 0x02014b50) {
      err = "bad central entry";
      return std::nullopt;
    }
    uint64_t method = le(z, off + 10, 2), csize = le(z, off + 20, 4), usize = le(z, off + 24, 4);
    uint64_t nlen = le(z, off + 28, 2), xlen = le(z, off + 30, 2), clen = le(z, off + 32, 2);
    uint64_t local = le(z, off + 42, 4);
    std::string member = z.substr(off + 46, nlen);
    for (size_t x = off + 46 + nlen; x + 4 <= off + 46 + nlen + xlen;) {  // ZIP64 extra
      uint64_t id = le(z, x, 2), sz = le(z, x + 2, 2);
      if (id == 1) {
        size_t p = x + 4;
        if (usize == 0xffffffff) {
          usize = le(z, p, 8);
          p += 8;
        }
        if (csize == 0xffffffff) {
          csize = le(z, p, 8);
          p += 8;
        }
        if (local == 0xffffffff) { local = le(z, p, 8); }
      }
      x += 4 + sz;
    }
    if (member == name) {
      if (method != 0) {
        err = name + ": compressed member (method " + std::to_string(method) + ")";
        return std::nullopt;
      }
      if (local + 30 > z.size()) {
        err = "local header past end";
        return std::nullopt;
      }
      uint64_t data = local + 30 + le(z, local + 26, 2) + le(z, local + 28, 2);
      if (data + csize > z.size()) {
        err = "member past end";
        return std::nullopt;
      }
      return z.substr(data, csize);
    }
    off += 46 + nlen + xlen + clen;
  }
  err = "member " + name + " missing";
  return std::nullopt;
}

// numpy min/max over all logical elements: NaN poisons both, infinities count.
bool expected_min_max(const nlohmann::json& t, double& mn, double& mx) {
  if (!t["stats"].get<bool>() || t["count"].get<uint64_t>() == 0) return false;
  uint64_t nan = t["nan_count"], pinf = t["posinf_count"], ninf = t["neginf_count"];
  uint64_t finite = t["count"].get<uint64_t>() - nan - pinf - ninf;
  if (nan > 0) {
    mn = mx = NAN;
    return true;
  }
  mn = ninf ? -HUGE_VAL : finite ? t["min"].get<double>() : HUGE_VAL;
  mx = pinf ? HUGE_VAL : finite ? t["max"].get<double>() : -HUGE_VAL;
  return true;
}

bool same_in(const std::string& descr, double want, double got) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (want == got) return true;
  if (descr == "<f4") return static_cast<double>(static_cast<float>(want)) == got;
  if (descr == "<f2") return half_to_double(float_to_half(static_cast<float>(want))) == got;
  return false;
}

void check_rows(Checker& c, const std::string& f, const Npy& n, const std::vector<nlohmann::json>& ts) {
  size_t rows = ts.size();
  bool shape_ok = rows == 0 ? n.values.empty() : (n.shape.size() == 2 && n.shape[0] == rows && n.shape[1] == 2);
  if (!shape_ok) {
    c.fail(f + ".shape", "expected (" + std::to_string(rows) + ", 2)");
    return;
  }
  for (size_t r = 0; r < rows; ++r) {
    double mn, mx;
    if (!expected_min_max(*(&ts[r]), mn, mx)) {
      ++c.skipped_nostats;
      continue;
    }
    ++c.tensors_checked;
    if (!same_in(n.descr, mn, n.values[2 * r]))
      c.fail(f + "[" + std::to_string(r) + "].min",
             "expected " + std::to_string(mn) + ", got " + std::to_string(n.values[2 * r]));
    if (!same_in(n.descr, mx, n.values[2 * r + 1]))
      c.fail(f + "[" + std::to_string(r) + "].max",
             "expected " + std::to_string(mx) + ", got " + std::to_string(n.values[2 * r + 1]));
  }
}

}  // namespace

void check_min_max_file(Checker& c, const nlohmann::json& e, const std::string& bytes) {
  std::string err;
  if (e["kind"] == "npy") {
    auto n = parse_npy(bytes, err);
    if (!n) {
      c.fail("min_max.npy", err);
      return;
    }
    const auto& t = e["tensors"][0];
    std::string want_descr(find_dtype(t["dtype"].get<std::string>())->npy_descr);
    if (n->descr != want_descr) c.fail("min_max.npy.descr", "expected " + want_descr + ", got " + n->descr);
    double mn, mx;
    if (!expected_min_max(t, mn, mx)) {
      ++c.skipped_nostats;
      return;
    }
    if (n->values.size() != 2) {
      c.fail("min_max.npy.shape", "expected (2,)");
      return;
    }
    ++c.tensors_checked;
    if (!same_in(n->descr, mn, n->values[0]))
      c.fail("min_max.npy.min", "expected " + std::to_string(mn) + ", got " + std::to_string(n->values[0]));
    if (!same_in(n->descr, mx, n->values[1]))
      c.fail("min_max.npy.max", "expected " + std::to_string(mx) + ", got " + std::to_string(n->values[1]));
    return;
  }
  for (const char* role : {"input", "output"}) {
    std::string member = std::string(role) + "s.npy";
    auto m = zip_member(bytes, member, err);
    if (!m) {
      c.fail("min_max.npz", err);
      continue;
    }
    auto n = parse_npy(*m, err);
    if (!n) {
      c.fail("min_max.npz/" + member, err);
      continue;
    }
    std::vector<nlohmann::json> ts;
    for (const auto& t : e["tensors"]) {
      if (t["role"] == role) ts.push_back(t);
    }
    check_rows(c, "min_max.npz/" + member, *n, ts);
  }
}

}  // namespace dumpgen
