// Small ATB and torch-hook dump trees for the ATB/torch compare tests (atb-torch.md 6): ATB tensor
// .bin files (formats.md 7.2), torch tensor files and the topology JSONs, in a temp directory.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/unit/compare_fixtures.h"

namespace atb_test {

namespace fs = std::filesystem;
using compare_test::write_file;

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
  std::string h = "$Version=1.0\n$Object.Count=1\n$Object.Length=" + std::to_string(raw.size()) + "\nformat=2\ndtype=" +
                  (f16 ? "1" : "0") + "\ndims=" + d + "\n$Object.data=0," + std::to_string(raw.size()) + "\n$End=1\n";
  write_file(p, h + raw);
}

// A torch tensor file. The .pth reader is written on branch atb-readers; until it is merged the
// content is npy (float32), which read_dump_header recognises by its magic whatever the name.
inline void write_torch_tensor(const fs::path& p, const std::vector<float>& v, const std::vector<uint64_t>& dims) {
  write_file(p, compare_test::npy_bytes(compare_test::Tensor{v, dims}));
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
inline std::string f3_atb_model(const std::string& type, int first, int n, const std::string& linear_param = "{\"hasBias\": true}") {
  std::string s = "{\"modelName\": \"M\", \"nodes\": [";
  for (int i = 0; i < n; ++i) {
    std::string id = std::to_string(first + i);
    s += std::string(i ? ", " : "") + "{\"opName\": \"" + type + "_" + id + "\", \"opType\": \"" + type +
         "\", \"inTensors\": [], \"outTensors\": [], \"nodes\": [" +
         "{\"opName\": \"LayerNormOperation_" + id + "_0\", \"opType\": \"LayerNormOperation\", \"param\": {}}, " +
         "{\"opName\": \"LinearOperation_" + id + "_1\", \"opType\": \"LinearOperation\", \"param\": " + linear_param + "}]}";
  }
  return s + "]}";
}

}  // namespace atb_test
