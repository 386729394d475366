// Toy model math for the paired GE/FX scenario (double math, per-side output rounding).
#include "tests/tools/dumpgen/model_ops.h"

#include <cmath>

#include "tests/tools/dumpgen/gen_dtype.h"

namespace dumpgen {

std::vector<ModelOp> make_chain(int n, bool fused) {
  struct Kind {
    const char* ge;
    const char* node;
    const char* target;
  };
  static const Kind kinds[] = {{"MatMul", "mm", "aten.mm.default"},
                               {"Add", "add", "aten.add.Tensor"},
                               {"Cast", "_to_copy", "aten._to_copy.default"},
                               {"SoftmaxV2", "_softmax", "aten._softmax.default"},
                               {"Mul", "mul", "aten.mul.Tensor"},
                               {"TransData", "", ""}};
  std::vector<ModelOp> ops;
  for (int i = 0; i < n; ++i) {
    const Kind& k = kinds[i % 6];
    ModelOp op;
    op.ge_type = k.ge;
    op.ge_name = std::string(k.ge) + "_" + std::to_string(i);
    if (*k.node) {
      op.fx_node = std::string(k.node) + "_" + std::to_string(i);
      op.fx_target = k.target;
    }
    op.in_graph = op.ge_type != "TransData";
    op.file_op_name = op.ge_name;
    ops.push_back(op);
  }
  for (int i = 0; fused && i + 1 < n; ++i) {
    if (ops[i].ge_type == "Add" && ops[i + 1].ge_type == "Cast") {
      ops[i].fused_first = ops[i + 1].fused_last = true;
      ops[i].file_op_name = ops[i + 1].file_op_name = ops[i].ge_name + ops[i + 1].ge_name;
    }
  }
  return ops;
}

Mat random_mat(Rng& rng, uint64_t rows, uint64_t cols, double scale, bool fp32) {
  Mat m{{rows, cols}, std::vector<double>(rows * cols), fp32};
  for (auto& x : m.v) x = scale * rng.normal();
  return round_to(m, fp32);
}

Mat round_to(const Mat& m, bool fp32) {
  Mat r = m;
  r.fp32 = fp32;
  for (auto& x : r.v) {
    x = fp32 ? static_cast<double>(static_cast<float>(x)) : half_to_double(float_to_half(static_cast<float>(x)));
  }
  return r;
}

Mat param_for(const ModelOp& op, int rows, int hidden, Rng& rng) {
  uint64_t r = static_cast<uint64_t>(rows), h = static_cast<uint64_t>(hidden);
  if (op.ge_type == "MatMul") return random_mat(rng, h, h, 1.0 / std::sqrt(double(h)), true);
  if (op.ge_type == "Add") {
    Mat b = random_mat(rng, 1, h, 0.1, true);
    b.shape = {h};
    return b;
  }
  if (op.ge_type == "Mul") {
    Mat s = random_mat(rng, r, h, 0.1, true);
    for (auto& x : s.v) x = static_cast<float>(x + 1.0);
    return s;
  }
  return {};
}

Mat apply_op(const ModelOp& op, const std::vector<Mat>& ins, bool fx) {
  const Mat& x = ins[0];
  uint64_t rows = x.shape[0], cols = x.shape[1];
  Mat y{{rows, cols}, std::vector<double>(rows * cols), true};
  if (op.ge_type == "MatMul") {
    const Mat& w = ins[1];
    for (uint64_t i = 0; i < rows; ++i)
      for (uint64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (uint64_t k = 0; k < cols; ++k) s += x.v[i * cols + k] * w.v[k * cols + j];
        y.v[i * cols + j] = s;
      }
  } else if (op.ge_type == "Add") {
    for (uint64_t i = 0; i < rows * cols; ++i) y.v[i] = x.v[i] + ins[1].v[i % cols];
  } else if (op.ge_type == "Mul") {
    for (uint64_t i = 0; i < rows * cols; ++i) y.v[i] = x.v[i] * ins[1].v[i];
  } else if (op.ge_type == "SoftmaxV2") {
    for (uint64_t i = 0; i < rows; ++i) {
      double mx = -HUGE_VAL, sum = 0;
      for (uint64_t j = 0; j < cols; ++j) mx = std::max(mx, x.v[i * cols + j]);
      for (uint64_t j = 0; j < cols; ++j) sum += std::exp(x.v[i * cols + j] - mx);
      for (uint64_t j = 0; j < cols; ++j) y.v[i * cols + j] = std::exp(x.v[i * cols + j] - mx) / sum;
    }
  } else {
    y.v = x.v;  // Cast, TransData: values unchanged
  }
  if (fx) return round_to(y, true);
  return round_to(y, op.ge_type == "Cast" || (op.ge_type == "TransData" && x.fp32));
}

void inject_error(Mat& m, double scale, Rng& rng) {
  double sq = 0;
  for (double x : m.v) sq += x * x;
  double rms = std::sqrt(sq / std::max<size_t>(1, m.v.size()));
  for (auto& x : m.v) x += scale * rms * rng.normal();
  m = round_to(m, m.fp32);
}

double cosine(const Mat& g, const Mat& m) {
  double dot = 0, gg = 0, mm = 0;
  for (size_t i = 0; i < g.v.size(); ++i) {
    dot += g.v[i] * m.v[i];
    gg += g.v[i] * g.v[i];
    mm += m.v[i] * m.v[i];
  }
  if (gg == 0 && mm == 0) return 1.0;
  return dot / (std::max(std::sqrt(gg), 1e-8) * std::max(std::sqrt(mm), 1e-8));
}

double rel_euclid(const Mat& g, const Mat& m) {
  double d = 0, s = 0;
  for (size_t i = 0; i < g.v.size(); ++i) {
    d += (m.v[i] - g.v[i]) * (m.v[i] - g.v[i]);
    s += g.v[i] * g.v[i];
  }
  return std::sqrt(s) <= 1.1920929e-07 ? 0.0 : std::sqrt(d / s);
}

}  // namespace dumpgen
