// Small hand-encoded dump trees for the compare tests: GE big-dump files (docs/formats/ge-dump.md §2-§3),
// float32 npy files and graph text, written into a temp directory.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace compare_test {

namespace fs = std::filesystem;

inline void put_varint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}
inline void put_key(std::string& s, int field, int wire) { put_varint(s, static_cast<uint64_t>(field << 3 | wire)); }
inline void put_bytes(std::string& s, int field, const std::string& b) {
  put_key(s, field, 2);
  put_varint(s, b.size());
  s += b;
}
inline void put_u(std::string& s, int field, uint64_t v) {
  put_key(s, field, 0);
  put_varint(s, v);
}

inline std::string shape_msg(const std::vector<uint64_t>& dims) {
  std::string packed, m;
  for (auto d : dims) put_varint(packed, d);
  put_bytes(m, 1, packed);
  return m;
}

struct Tensor {
  std::vector<float> values;
  std::vector<uint64_t> shape;  // empty: {values.size()}
};

// DT_FLOAT (1), format ND (2); inputs then outputs.
inline std::string ge_file_bytes(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                 const std::string& op_name = "op") {
  std::string header, payload;
  put_bytes(header, 1, "2.0");
  auto desc = [&](const Tensor& t, bool input) {
    std::vector<uint64_t> shape = t.shape.empty() ? std::vector<uint64_t>{t.values.size()} : t.shape;
    std::string m;
    put_u(m, 1, 1);
    put_u(m, 2, 2);
    put_bytes(m, 3, shape_msg(shape));
    put_u(m, input ? 5 : 6, t.values.size() * 4);
    put_bytes(m, input ? 6 : 7, shape_msg(shape));
    return m;
  };
  for (const auto& t : outputs) put_bytes(header, 3, desc(t, false));
  for (const auto& t : inputs) put_bytes(header, 4, desc(t, true));
  put_bytes(header, 6, op_name);
  for (const auto* list : {&inputs, &outputs}) {
    for (const auto& t : *list) payload.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * 4);
  }
  std::string out(8, '\0');
  uint64_t h = header.size();
  std::memcpy(out.data(), &h, 8);
  return out + header + payload;
}

inline std::string npy_bytes(const Tensor& t) {
  std::vector<uint64_t> shape = t.shape.empty() ? std::vector<uint64_t>{t.values.size()} : t.shape;
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i)
    dims += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  size_t total = 10 + dict.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  dict += std::string(pad, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  uint16_t len = static_cast<uint16_t>(dict.size());
  out.append(reinterpret_cast<const char*>(&len), 2);
  out += dict;
  out.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * 4);
  return out;
}

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
  std::string s = "name: \"graph_1\"\n";
  for (const auto& op : ops) {
    s += "op {\n  name: \"" + op.name + "\"\n  type: \"" + op.type + "\"\n";
    for (const auto& in : op.inputs) s += "  input: \"" + in + "\"\n";
    s += "  output_desc {\n    name: \"y\"\n    dtype: DT_FLOAT\n    layout: \"ND\"\n";
    if (!op.fx_tag.empty()) {
      s += "    attr {\n      key: \"_fx_tensor_name\"\n      value {\n        s: \"" + op.fx_tag +
           "\"\n      }\n    }\n";
    }
    s += "  }\n}\n";
  }
  return s;
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
