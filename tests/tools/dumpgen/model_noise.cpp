// Kernel noise for the GE side of `msit-dumpgen model` (model_noise.h).
#include "tests/tools/dumpgen/model_noise.h"

#include <stdexcept>

#include "tests/tools/dumpgen/gen_dtype.h"

namespace dumpgen {

namespace {

void round_precision(Mat& m, const std::string& dtype) { round_values(m.v, dtype); }

}  // namespace

void round_values(std::vector<double>& v, const std::string& dtype) {
  if (dtype.empty()) return;
  const DTypeSpec* dt = find_dtype(dtype);
  if (!dt) throw std::runtime_error("unknown reduced precision '" + dtype + "'");
  for (auto& x : v) x = decode_value(*dt, encode_value(*dt, x));
}

void add_relative_noise(std::vector<double>& v, double sigma, Rng& rng) {
  if (sigma <= 0) return;
  for (auto& x : v) x *= 1.0 + sigma * rng.normal();
}

double type_noise_factor(const std::string& ge_type) {
  if (exact_op(ge_type)) return 0.0;
  static const std::map<std::string, double> f = {{"MatMul", 1.0},    {"BatchMatMul", 1.0}, {"RmsNorm", 1.5},
                                                  {"SoftmaxV2", 0.7}, {"Add", 0.3},         {"Mul", 0.5}};
  auto it = f.find(ge_type);
  return it == f.end() ? 1.0 : it->second;
}

double noise_factor(const ModelOp& op) { return type_noise_factor(op.ge_type); }

bool ge_output_fp32(const ModelOp& op, const KernelNoise& kn, bool input_fp32) {
  if (exact_op(op.ge_type)) return op.ge_type == "Cast" || input_fp32;  // copies keep their dtype
  if (kn.out_dtype == "float32") return true;
  if (kn.out_dtype == "mixed") return op.ge_type != "MatMul" && op.ge_type != "BatchMatMul";
  return false;
}

Mat ge_kernel(const ModelOp& op, const std::vector<Mat>& ins, const KernelNoise& kn, Rng& rng) {
  auto reduced = kn.reduced.find(op.ge_type);
  std::vector<Mat> in = ins;
  if (reduced != kn.reduced.end()) {
    for (auto& m : in) round_precision(m, reduced->second);
  }
  Mat y = op_math(op, in);
  double sigma = kn.level * noise_factor(op);
  add_relative_noise(y.v, sigma, rng);
  if (reduced != kn.reduced.end()) round_precision(y, reduced->second);
  return round_to(y, ge_output_fp32(op, kn, ins[0].fp32));
}

std::map<std::string, std::string> parse_reduced(const std::string& spec) {
  std::map<std::string, std::string> m;
  size_t i = 0;
  while (i < spec.size()) {
    size_t comma = spec.find(',', i);
    std::string item = spec.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    size_t eq = item.find('=');
    if (eq == std::string::npos || (item.substr(eq + 1) != "bfloat16" && item.substr(eq + 1) != "float16")) {
      throw std::runtime_error("model: --reduced wants TYPE=bfloat16|float16[,...], got '" + item + "'");
    }
    m[item.substr(0, eq)] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  return m;
}

}  // namespace dumpgen
