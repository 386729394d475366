// The toy model of `msit-dumpgen model`: op chain, parameters, and the math in double with
// float32 (FX) or float16 (GE) rounding of every output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_tensor.h"

namespace dumpgen {

struct Mat {
  std::vector<uint64_t> shape;
  std::vector<double> v;
  bool fp32 = true;  // GE side: float32 (after Cast) or float16
};

struct ModelOp {
  std::string ge_type, ge_name;    // GE op type and name, e.g. MatMul / MatMul_0
  std::string fx_node, fx_target;  // empty for GE-only ops (TransData)
  bool in_graph = true;            // TransData is inserted after the graph dump
  bool fused_first = false, fused_last = false;
  std::string file_op_name;  // op name in the dump file (fused concatenation)
  int variant = 0;           // llama chain: which BatchMatMul / Reshape / Transpose / MatMul of the block
};

inline constexpr uint64_t kHeads = 4;  // llama chain: attention heads (hidden % 4 == 0)

std::vector<ModelOp> make_chain(int n, bool fused);
// `--chain llama`: GatherV2 (embedding), then decoder blocks of 15 ops: RmsNorm, MatMul,
// Reshape, Transpose, BatchMatMul, SoftmaxV2, BatchMatMul, Transpose, Reshape, MatMul, Add,
// RmsNorm, MatMul, Mul, MatMul (docs/dumpgen.md).
std::vector<ModelOp> make_llama_chain(int n);
// Ops that move or copy values without arithmetic: no kernel noise.
bool exact_op(const std::string& ge_type);
Mat param_for(const ModelOp& op, int rows, int hidden, Rng& rng);
Mat random_mat(Rng& rng, uint64_t rows, uint64_t cols, double scale, bool fp32);
Mat round_to(const Mat& m, bool fp32);
// The op's math in double, unrounded (shape from the op: Reshape / Transpose / BatchMatMul).
Mat op_math(const ModelOp& op, const std::vector<Mat>& ins);
// ins[0] = activation, ins[1] = parameter (if any); output rounded to the side's dtype.
Mat apply_op(const ModelOp& op, const std::vector<Mat>& ins, bool fx);
void inject_error(Mat& m, double scale, Rng& rng);
double cosine(const Mat& golden, const Mat& mine);
double rel_euclid(const Mat& golden, const Mat& mine);

}  // namespace dumpgen
