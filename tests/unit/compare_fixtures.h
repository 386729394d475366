// Small dump trees for the compare tests: GE big-dump files (docs/formats/ge-dump.md §2-§3), float32 npy
// files and graph text, encoded by msit_dumpgen_lib (the generator independent of the readers under test)
// and written into a temp directory.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pb.h"
#include "tests/tools/dumpgen/graph_text.h"

namespace compare_test {

namespace fs = std::filesystem;

struct Tensor {
  std::vector<float> values;
  std::vector<uint64_t> shape;  // empty: {values.size()}
};

inline std::vector<uint64_t> shape_of(const Tensor& t) {
  return t.shape.empty() ? std::vector<uint64_t>{t.values.size()} : t.shape;
}
inline std::string raw_f32(const std::vector<float>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)};
}

// DT_FLOAT (1), format ND (2); inputs then outputs; encoded by msit_dumpgen_lib (tests/tools/dumpgen/gen_pb.h).
inline std::string ge_file_bytes(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                 const std::string& op_name = "op") {
  auto desc = [](const Tensor& t) {
    dumpgen::PbTensor d;
    d.data_type = 1;
    d.format = 2;
    d.shape = d.original_shape = shape_of(t);
    d.size = t.values.size() * sizeof(float);
    return d;
  };
  dumpgen::PbHeader h;
  h.op_name = op_name;
  std::string payloads;
  for (const auto& t : inputs) {
    h.inputs.push_back(desc(t));
    payloads += raw_f32(t.values);
  }
  for (const auto& t : outputs) {
    h.outputs.push_back(desc(t));
    payloads += raw_f32(t.values);
  }
  return dumpgen::ge_big_dump(dumpgen::encode_dump_data(h), payloads);
}

inline std::string npy_bytes(const Tensor& t) { return dumpgen::npy_header("<f4", shape_of(t)) + raw_f32(t.values); }

inline void write_file(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

inline std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// One op of the graph: name, type, inputs ("src:idx"), FX tag of output 0 (empty: none).
struct GraphOpSpec {
  std::string name, type;
  std::vector<std::string> inputs;
  std::string fx_tag;
};

inline std::string graph_text(const std::vector<GraphOpSpec>& ops) {
  std::vector<dumpgen::GraphOp> g;
  for (const auto& op : ops) {
    dumpgen::GraphTensorDesc y;
    y.dtype = "DT_FLOAT";
    if (!op.fx_tag.empty()) y.fx_tensor_name = op.fx_tag;
    g.push_back({op.name, op.type, op.inputs, {}, {y}, {}});
  }
  return dumpgen::graph_text("graph_1", g);
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "msit-compare-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace compare_test
