// Kernel-noise model of `msit-dumpgen model --noise` (docs/dumpgen.md "Kernel noise"): the GE
// side of a model as an NPU computes it, relative noise on every computing op's output at a
// per-type level, exact ops noise-free, reduced-precision kernels that round their inputs and
// output to bf16/fp16 while writing the output dtype.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/model_ops.h"

namespace dumpgen {

struct KernelNoise {
  double level = 0;                            // relative std of a MatMul's output noise
  std::map<std::string, std::string> reduced;  // op type -> "bfloat16" | "float16" it computes in
  std::string out_dtype = "float16";           // float16 | float32 | mixed (matmuls fp16, rest fp32)
};

// Noise level of an op type relative to --noise (norms and matmuls accumulate more rounding
// than elementwise ops); 0 for exact ops.
double noise_factor(const ModelOp& op);
// Whether the GE output of `op` is written as float32, given whether its first input is.
bool ge_output_fp32(const ModelOp& op, const KernelNoise& kn, bool input_fp32);
// The GE output of `op`: reduced-precision inputs, math, relative noise, reduced-precision
// output, rounded to the output dtype.
Mat ge_kernel(const ModelOp& op, const std::vector<Mat>& ins, const KernelNoise& kn, Rng& rng);
// Parses "MatMul=bfloat16,BatchMatMul=float16".
std::map<std::string, std::string> parse_reduced(const std::string& spec);

}  // namespace dumpgen
