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
// than elementwise ops); 0 for exact ops. By GE type name; the ATB generator maps its op types
// onto these (cmd_atb.cpp), so both generators share one table.
double type_noise_factor(const std::string& ge_type);
double noise_factor(const ModelOp& op);
// The kernel model on plain values, shared by both generators: values rounded to `reduced`
// (bfloat16 / float16; empty: none), then multiplied elementwise by 1 + sigma z, z ~ N(0, 1).
void round_values(std::vector<double>& v, const std::string& dtype);
void add_relative_noise(std::vector<double>& v, double sigma, Rng& rng);
// Whether the GE output of `op` is written as float32, given whether its first input is.
bool ge_output_fp32(const ModelOp& op, const KernelNoise& kn, bool input_fp32);
// The GE output of `op`: reduced-precision inputs, math, relative noise, reduced-precision
// output, rounded to the output dtype.
Mat ge_kernel(const ModelOp& op, const std::vector<Mat>& ins, const KernelNoise& kn, Rng& rng);
// Parses "MatMul=bfloat16,BatchMatMul=float16".
std::map<std::string, std::string> parse_reduced(const std::string& spec);

}  // namespace dumpgen
