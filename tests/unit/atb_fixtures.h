// Small ATB and torch-hook dump trees for the ATB/torch compare tests (docs/formats/atb-torch.md §5): ATB tensor
// .bin files (docs/formats/atb-torch.md §2.6), torch tensor files and the topology JSONs, in a temp directory.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/unit/compare_fixtures.h"

namespace atb_test {

namespace fs = std::filesystem;
using compare_test::write_file;

// A directory under /tmp, removed with everything in it when the test ends.
struct TempDir {
  fs::path p;
  TempDir() {
    char tmpl[] = "/tmp/atb_test_XXXXXX";
    p = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// The last `parts` components of a path, joined with '/' (report paths without the temp prefix).
inline std::string tail(const std::string& path, int parts) {
  std::vector<std::string> v;
  for (const auto& x : fs::path(path)) v.push_back(x.string());
  std::string out;
  for (size_t i = v.size() - std::min<size_t>(v.size(), static_cast<size_t>(parts)); i < v.size(); ++i) {
    out += (out.empty() ? "" : "/") + v[i];
  }
  return out;
}

// IEEE half of a float that fp16 holds exactly (normal numbers and zero only: fixtures).
inline uint16_t to_half(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000);
  if ((b & 0x7FFFFFFF) == 0) return sign;
  int exp = static_cast<int>((b >> 23) & 0xFF) - 127 + 15;
  return static_cast<uint16_t>(sign | (exp << 10) | ((b >> 13) & 0x3FF));
}

// ATB tensor .bin: dtype 0 float32 or 1 float16, format ND.
inline void write_atb_bin(const fs::path& p, const std::vector<float>& v, const std::vector<uint64_t>& dims, bool f16) {
  std::string raw;
  for (float x : v) {
    if (f16) {
      uint16_t h = to_half(x);
      raw.append(reinterpret_cast<const char*>(&h), 2);
    } else {
      raw.append(reinterpret_cast<const char*>(&x), 4);
    }
  }
  std::string d;
  for (size_t i = 0; i < dims.size(); ++i) d += (i ? "," : "") + std::to_string(dims[i]);
  std::string h = "$Version=1.0\n$Object.Count=1\n$Object.Length=" + std::to_string(raw.size()) +
                  "\nformat=2\ndtype=" + (f16 ? "1" : "0") + "\ndims=" + d + "\n$Object.data=0," +
                  std::to_string(raw.size()) + "\n$End=1\n";
  write_file(p, h + raw);
}

inline uint32_t crc32(const std::string& d) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : d) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}
inline void le(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// data.pkl of torch.save(float32 tensor), protocol 2, the opcodes torch 1.13 writes (docs/formats/atb-torch.md §1.3).
inline std::string pth_pickle(uint64_t numel, const std::vector<uint64_t>& dims) {
  auto binint = [](uint64_t v) {
    std::string s;
    if (v < 256) {
      s = "K";
      le(s, v, 1);
    } else if (v < 65536) {
      s = "M";
      le(s, v, 2);
    } else {
      s = "J";
      le(s, v, 4);
    }
    return s;
  };
  auto uni = [](const std::string& t) {
    std::string s = "X";
    le(s, t.size(), 4);
    return s + t;
  };
  auto tup = [&](const std::vector<uint64_t>& v) {
    std::string body;
    for (auto x : v) body += binint(x);
    if (v.empty()) return std::string(")");
    if (v.size() <= 3) return body + static_cast<char>(0x84 + v.size());
    return "(" + body + "t";
  };
  std::vector<uint64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return std::string("\x80\x02") + "ctorch._utils\n_rebuild_tensor_v2\n((" + uni("storage") + "ctorch\nFloatStorage\n" +
         uni("0") + uni("cpu") + binint(numel) + "tQ" + binint(0) + tup(dims) + tup(strides) + "\x89" +
         "ccollections\nOrderedDict\n)RtR.";
}

// torch.save's container: a stored ZIP under `{stem}/`, data 64-byte aligned by an `FB` extra field.
inline std::string pth_zip(const std::string& stem, const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out, central;
  for (const auto& [name, data] : members) {
    std::string full = stem + "/" + name;
    size_t offset = out.size();
    size_t pad = (64 - (offset + 30 + full.size() + 4) % 64) % 64;
    std::string local, extra = "FB";
    le(extra, pad, 2);
    extra.append(pad, 'Z');
    le(local, 0x04034b50, 4), le(local, 20, 2), le(local, 0, 2), le(local, 0, 2), le(local, 0, 4);
    le(local, crc32(data), 4), le(local, data.size(), 4), le(local, data.size(), 4);
    le(local, full.size(), 2), le(local, extra.size(), 2);
    out += local + full + extra + data;
    le(central, 0x02014b50, 4), le(central, 20, 2), le(central, 20, 2), le(central, 0, 2), le(central, 0, 2);
    le(central, 0, 4), le(central, crc32(data), 4), le(central, data.size(), 4), le(central, data.size(), 4);
    le(central, full.size(), 2), le(central, 0, 2), le(central, 0, 2), le(central, 0, 2), le(central, 0, 2);
    le(central, 0, 4), le(central, offset, 4);
    central += full;
  }
  size_t cd = out.size();
  out += central;
  le(out, 0x06054b50, 4), le(out, 0, 2), le(out, 0, 2), le(out, members.size(), 2), le(out, members.size(), 2);
  le(out, central.size(), 4), le(out, cd, 4), le(out, 0, 2);
  return out;
}

// A torch hook tensor file: torch.save of a contiguous float32 CPU tensor.
inline void write_torch_tensor(const fs::path& p, const std::vector<float>& v, const std::vector<uint64_t>& dims) {
  std::string raw(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  write_file(
      p, pth_zip(p.stem().string(), {{"data.pkl", pth_pickle(v.size(), dims)}, {"data/0", raw}, {"version", "3\n"}}));
}

// {"name": .., "type": .., "children": [..]} as torch's hook writes it.
struct TorchNode {
  std::string name, type;
  std::vector<TorchNode> children;
};
inline std::string torch_tree_json(const TorchNode& n) {
  std::string s = "{\"name\": \"" + n.name + "\", \"type\": \"" + n.type + "\", \"children\": [";
  for (size_t i = 0; i < n.children.size(); ++i) s += (i ? ", " : "") + torch_tree_json(n.children[i]);
  return s + "]}";
}

// F3's torch tree: root -> root.layers (ModuleList) -> root.layers.{0..n-1} (Block) -> ln, fc.
inline TorchNode f3_torch_tree(int layers = 11) {
  TorchNode list{"root.layers", "ModuleList", {}};
  for (int i = 0; i < layers; ++i) {
    std::string b = "root.layers." + std::to_string(i);
    list.children.push_back({b, "Block", {{b + ".ln", "LayerNorm", {}}, {b + ".fc", "Linear", {}}}});
  }
  return TorchNode{"root", "Model", {list}};
}

// F3's ATB model JSON: n level-1 {prefix}_{first+i} nodes (type `type`), each with LN and Linear.
inline std::string f3_atb_model(const std::string& type, int first, int n,
                                const std::string& linear_param = "{\"hasBias\": true}") {
  std::string s = "{\"modelName\": \"M\", \"nodes\": [";
  for (int i = 0; i < n; ++i) {
    std::string id = std::to_string(first + i);
    s += std::string(i ? ", " : "") + "{\"opName\": \"" + type + "_" + id + "\", \"opType\": \"" + type +
         "\", \"inTensors\": [], \"outTensors\": [], \"nodes\": [" + "{\"opName\": \"LayerNormOperation_" + id +
         "_0\", \"opType\": \"LayerNormOperation\", \"param\": {}}, " + "{\"opName\": \"LinearOperation_" + id +
         "_1\", \"opType\": \"LinearOperation\", \"param\": " + linear_param + "}]}";
  }
  return s + "]}";
}

}  // namespace atb_test
