// Small ATB and torch-hook dump trees for the ATB/torch compare tests (docs/formats/atb-torch.md §5): ATB tensor
// .bin files (docs/formats/atb-torch.md §2.6) and torch tensor files encoded by msit_dumpgen_lib, and the topology
// JSONs, in a temp directory.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_atb_bin.h"
#include "tests/tools/dumpgen/gen_dtype.h"
#include "tests/tools/dumpgen/gen_pth.h"
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

// Stored bytes of `v`: float32, or fp16 by msit_dumpgen_lib's rounding (the fixtures use values fp16 holds).
inline std::string raw_of(const std::vector<float>& v, bool f16) {
  std::string raw;
  for (float x : v) {
    if (f16) {
      uint16_t h = dumpgen::float_to_half(x);
      raw.append(reinterpret_cast<const char*>(&h), 2);
    } else {
      raw.append(reinterpret_cast<const char*>(&x), 4);
    }
  }
  return raw;
}

// ATB tensor .bin: aclDataType 0 float32 or 1 float16, format ND.
inline void write_atb_bin(const fs::path& p, const std::vector<float>& v, const std::vector<uint64_t>& dims, bool f16) {
  std::string raw = raw_of(v, f16);
  write_file(p, dumpgen::atb_bin_header(f16 ? 1 : 0, 2, dims, raw.size()) + raw);
}

// A torch hook tensor file: torch.save of a contiguous float32 CPU tensor, members under `{stem}/`.
inline void write_torch_tensor(const fs::path& p, const std::vector<float>& v, const std::vector<uint64_t>& dims) {
  write_file(p, dumpgen::pth_bytes(p.stem().string(), dumpgen::pth_pickle("FloatStorage", dims), raw_of(v, false)));
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
