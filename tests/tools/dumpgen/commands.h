// Subcommands of msit-dumpgen; each returns the process exit code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dumpgen {

struct TreeOptions {
  std::string out;
  std::string layout = "all";
  uint64_t files = 200;
  uint64_t seed = 1;
  std::vector<std::string> dtypes;  // empty: all
  int ranks = 1;
  int tokens = 2;
  int corrupt = 0;
  uint64_t max_elements = 65536;
};
int run_tree(const TreeOptions& o);

struct VerifyOptions {
  std::string manifest, tree;
  std::string format = "rich";
  bool expect_raw_gone = false;
  bool expect_raw_kept = false;
  int max_errors = 50;  // printed in detail
};
int run_verify(const VerifyOptions& o);

struct StreamOptions {
  std::string out;
  double rate_mbps = 100;
  double seconds = 5;
  uint64_t min_size = 64 * 1024, max_size = 4 * 1024 * 1024;
  std::vector<std::string> dtypes = {"float16", "bfloat16"};
  uint64_t chunk = 256 * 1024;
  double rename_fraction = 0.1;
  double fx_fraction = 0;
  double slow_fraction = 0;  // writers holding their file open (half written) for slow_ms
  uint64_t slow_ms = 500;
  uint64_t files_per_step = 500;
  uint64_t seed = 1;
  std::string manifest;
};
int run_stream(const StreamOptions& o);

struct ModelOptions {
  std::string out;
  int ops = 12;
  int tokens = 2;
  int ranks = 1;
  int diverge_at = -1;  // -1: no divergence
  double diverge_scale = 0.5;
  bool diverge_local = false;  // the injected error stays in that op's output: later ops get clean inputs
  bool fused = false;
  bool nz_weights = false;
  bool ge_stats = false;  // GE side as statistics-mode CSV files (docs/formats/ge-dump.md §8) instead of dumps
  std::string fx_layout = "rank";  // rank | data-dump
  std::string ge_layout = "rank";  // rank | old
  int hidden = 64;
  int rows = 4;
  uint64_t seed = 1;
  // Kernel-noise model (docs/dumpgen.md "Kernel noise"); none given: the fp16-rounding model.
  std::string chain = "toy";  // toy | llama
  double noise = 0;           // relative noise of every computing op's GE output
  std::string ge_dtype;       // float16 | float32 | mixed; empty: float16 (toy) / float32 (llama)
  std::string reduced;        // TYPE=bfloat16|float16,...: kernels computing in lower precision
  std::string diverge_type;   // inject at the --diverge-nth op of this GE type instead of --diverge-at
  int diverge_nth = 0;
  bool kernel_mode() const { return chain != "toy" || noise > 0 || !ge_dtype.empty() || !reduced.empty(); }
};
int run_model(const ModelOptions& o);

struct AtbOptions {
  std::string out;
  int layers = 3;
  int tokens = 2;
  int hidden = 16;
  int rows = 2;
  int diverge_at = -1;  // leaf op: layer * 2 (LayerNorm) or layer * 2 + 1 (Linear); -1 none
  double diverge_scale = 0.5;
  uint64_t seed = 1;
  // --model llama (cmd_atb_llama.cpp): HF Llama layers, the kernel-noise model on the ATB side.
  std::string model = "block";
  double noise = 0;                   // relative kernel noise of a Linear's output
  std::string reduced;                // ATB types computing in lower precision: TYPE=bfloat16,...
  std::string out_dtype = "float16";  // ATB output dtype
  std::string diverge_type;           // inject into the --diverge-nth op of this ATB type
  int diverge_nth = 0;
  bool diverge_local = false;  // later ops read the uninjected output
  // Also the NPU side as msit's torch hooks dump it (torch_npu/), with the ATB side's values:
  // kernel noise and injection included (a torch vs torch pair).
  bool torch_mine = false;
  // llama: each leaf op directory also gets what ATB's own dump holds for opcheck: op_param.json
  // (the op's parameters) and the weights as intensors (Linear's weight, RmsNorm's gamma).
  bool op_params = false;
};
int run_atb(const AtbOptions& o);
int run_atb_llama(const AtbOptions& o);

// One large file (bench): `kind` pth | atb_bin | npy, `elements` values of `dtype`, streamed.
struct BigFileOptions {
  std::string out, kind = "pth", dtype = "float16";
  uint64_t elements = 1u << 20;
  uint64_t seed = 1;
};
int run_bigfile(const BigFileOptions& o);

int run_selfcheck(const std::string& testdata_dir);

}  // namespace dumpgen
