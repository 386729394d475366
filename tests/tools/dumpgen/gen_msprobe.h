// msProbe dump trees (docs/formats/msprobe.md; docs/dumpgen.md "msprobe"), written from the
// format page and independent of the library's readers: a toy or llama chain run on a target
// side (kernel noise, an injectable error) and a golden side (exact float32), PyTorch (.pt) or
// MindSpore (.npy), tensor or statistics task, md5 mode, 8.x or 26.x dump.json, steps x ranks,
// and a manifest of every tensor file's statistics computed in float64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dumpgen {

struct MsprobeGenOptions {
  std::string out;
  std::string framework = "pytorch";        // pytorch | mindspore (target side)
  std::string golden_framework;             // empty: the target's
  std::string task = "tensor";              // tensor | statistics
  std::string summary_mode = "statistics";  // statistics | md5
  int generation = 26;                      // 26 | 8
  std::string level = "L1";                 // L1 | mix (modules around each block, construct.json)
  int steps = 1;
  int ranks = 1;
  bool proc_dirs = false;  // proc{PID} folders instead of rank{R} (one rank)
  bool ms_split = false;   // MindSpore PYNATIVE_GRAPH: the tree under pynative/ (and graph/ at level mix)
  bool backward = false;   // backward entries (and parameters_grad at level mix)
  int ops = 12;
  std::string chain = "toy";  // toy | llama (as `msit-dumpgen model`)
  int hidden = 64;
  int rows = 4;
  uint64_t seed = 1;
  std::string dtype = "bfloat16";  // target dtype: float16 | bfloat16 | float32 (golden: float32)
  double noise = 0;                // relative kernel noise (model_noise.h), per op type
  std::string reduced;             // TYPE=bfloat16|float16,...: kernels computing in lower precision
  int diverge_at = -1;             // op index with an injected error (-1: none)
  std::string diverge_type;        // or: the --diverge-nth op of this GE type
  int diverge_nth = 0;
  double diverge_scale = 0.5;  // the injected error's RED
  bool diverge_local = false;  // later ops read the uninjected output
  int nan_at = -1;             // op whose target output gets a NaN and a +Inf (-1: none)
  int diverge_backward = -1;   // op whose backward entry's target output gradient gets an error of RED diverge_scale
                               // (-1: none; local: the generator's gradients are independent draws per entry)
};

// Writes OUT/npu/... (target), OUT/bench/... (golden), OUT/scenario.json and OUT/manifest.json.
// Returns the number of tensor files written. Throws std::runtime_error on bad options.
uint64_t write_msprobe_dump(const MsprobeGenOptions& o);

// msProbe's API name for one of the model's op types (toy and llama chains), per framework.
std::string msprobe_api_name(const std::string& ge_type, const std::string& framework);

}  // namespace dumpgen
