// msit-dumpgen: the independent side of the tests. Writes dump trees with a manifest of
// expected statistics (tree, model, stream) and checks compact's output against it (verify).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_msprobe.h"

using namespace dumpgen;

namespace {

void add_tree(CLI::App& app, TreeOptions& o) {
  auto* c = app.add_subcommand("tree", "write a dump tree over every layout plus manifest.json");
  c->add_option("--out", o.out, "output directory (manifest.json goes here)")->required();
  c->add_option("--layout", o.layout, "layout name or 'all' (see docs/dumpgen.md)");
  c->add_option("--files", o.files, "number of valid raw files (at least)");
  c->add_option("--seed", o.seed, "random seed (same seed -> same tree)");
  c->add_option("--dtypes", o.dtypes, "comma-separated dtypes (default: all)")->delimiter(',');
  c->add_option("--ranks", o.ranks, "ranks (rank layouts) / devices (old GE layout)");
  c->add_option("--tokens", o.tokens, "step directories per rank");
  c->add_option("--corrupt", o.corrupt, "number of corrupt files to add");
  c->add_option("--max-elements", o.max_elements, "largest logical tensor size");
}

void add_verify(CLI::App& app, VerifyOptions& o) {
  auto* c = app.add_subcommand("verify", "check summaries in a tree against a manifest");
  c->add_option("--manifest", o.manifest, "manifest.json written by tree")->required();
  c->add_option("--tree", o.tree, "tree root the manifest paths are relative to")->required();
  c->add_option("--format", o.format, "summary format: rich | msit")->check(CLI::IsMember({"rich", "msit"}));
  c->add_flag("--expect-raw-gone", o.expect_raw_gone, "valid raw files must have been removed");
  c->add_flag("--expect-raw-kept", o.expect_raw_kept, "valid raw files must still exist");
  c->add_option("--max-errors", o.max_errors, "failure lines printed in detail");
}

void add_stream(CLI::App& app, StreamOptions& o) {
  auto* c = app.add_subcommand("stream", "simulate a live GE/FX dump at a steady byte rate");
  c->add_option("--out", o.out, "output directory")->required();
  c->add_option("--rate", o.rate_mbps, "target write rate in MB/s (1 MB = 1e6 bytes)");
  c->add_option("--seconds", o.seconds, "duration");
  c->add_option("--min-size", o.min_size, "smallest payload bytes per file");
  c->add_option("--max-size", o.max_size, "largest payload bytes per file");
  c->add_option("--dtype", o.dtypes, "comma-separated GE dtypes")->delimiter(',');
  c->add_option("--chunk", o.chunk, "bytes per write() call");
  c->add_option("--rename-fraction", o.rename_fraction, "files written under a temp name then renamed");
  c->add_option("--fx-fraction", o.fx_fraction, "fraction of files written as FX .npy");
  c->add_option("--slow-fraction", o.slow_fraction,
                "files whose writer writes half, keeps the file open --slow-ms, then finishes");
  c->add_option("--slow-ms", o.slow_ms, "how long a slow writer keeps its file open");
  c->add_option("--files-per-step", o.files_per_step, "files per step directory");
  c->add_option("--seed", o.seed, "random seed");
  c->add_option("--manifest", o.manifest, "write per-file expected min/max here");
}

void add_model(CLI::App& app, ModelOptions& o) {
  auto* c = app.add_subcommand("model", "paired GE-vs-FX dumps of a toy model, for compare");
  c->add_option("--out", o.out, "output directory (msit_ge_dump, msit_fx_dump, scenario.json)")->required();
  c->add_option("--ops", o.ops, "ops in the chain");
  c->add_option("--tokens", o.tokens, "tokens (graph runs)");
  c->add_option("--ranks", o.ranks, "ranks");
  c->add_option("--diverge-at", o.diverge_at, "op index with a large injected error (-1: none)");
  c->add_option("--diverge-scale", o.diverge_scale, "relative size of the injected error (its RED)");
  c->add_flag("--diverge-local", o.diverge_local, "do not propagate the injected error to later ops");
  c->add_flag("--ge-stats", o.ge_stats, "write the GE side as statistics-mode CSV files (ge.exec.dumpData = stats)");
  c->add_flag("--fused", o.fused, "fuse Add+Cast pairs into AutomaticBufferFusionOp files");
  c->add_flag("--nz-weights", o.nz_weights, "store MatMul weights as FRACTAL_NZ on the GE side");
  c->add_option("--fx-layout", o.fx_layout, "rank | data-dump (old, steps from 1)")
      ->check(CLI::IsMember({"rank", "data-dump"}));
  c->add_option("--ge-layout", o.ge_layout, "rank | old")->check(CLI::IsMember({"rank", "old"}));
  c->add_option("--hidden", o.hidden, "hidden size");
  c->add_option("--rows", o.rows, "rows (batch x sequence)");
  c->add_option("--seed", o.seed, "random seed");
  c->add_option("--chain", o.chain, "toy (MatMul/Add/Cast/Softmax/Mul/TransData) | llama (decoder blocks)")
      ->check(CLI::IsMember({"toy", "llama"}));
  c->add_option("--noise", o.noise, "relative kernel noise on every computing op's GE output (e.g. 1e-3)");
  c->add_option("--ge-dtype", o.ge_dtype, "GE output dtype: float16 | float32 | mixed")
      ->check(CLI::IsMember({"float16", "float32", "mixed"}));
  c->add_option("--reduced", o.reduced, "TYPE=bfloat16|float16,...: op types computing in lower precision");
  c->add_option("--diverge-type", o.diverge_type, "inject into the --diverge-nth op of this GE type");
  c->add_option("--diverge-nth", o.diverge_nth, "which op of --diverge-type (0 = first)");
}

void add_atb(CLI::App& app, AtbOptions& o) {
  auto* c = app.add_subcommand("atb", "paired ATB (.bin + topology) and torch-hook (.pth) dumps of a toy model");
  c->add_option("--out", o.out, "output directory (atb/, torch/, scenario.json)")->required();
  c->add_option("--layers", o.layers, "Block layers (LayerNorm + Linear each)");
  c->add_option("--tokens", o.tokens, "tokens (forward calls) per side");
  c->add_option("--hidden", o.hidden, "hidden size (model size knob)");
  c->add_option("--rows", o.rows, "rows per activation");
  c->add_option("--diverge-at", o.diverge_at,
                "ATB leaf op with a scaled output: layer*2 (LayerNorm), layer*2+1 (Linear)");
  c->add_option("--diverge-scale", o.diverge_scale,
                "block: the diverged output is multiplied by 1 + this; llama: the injected error's RED");
  c->add_option("--seed", o.seed, "random seed");
  c->add_option("--model", o.model, "block (LayerNorm + Linear) | llama (HF Llama layers, kernel noise)")
      ->check(CLI::IsMember({"block", "llama"}));
  c->add_option("--noise", o.noise, "llama: relative kernel noise on every computing ATB op's output");
  c->add_option("--reduced", o.reduced, "llama: ATB types computing in lower precision, TYPE=bfloat16,...");
  c->add_option("--atb-dtype", o.out_dtype, "llama: ATB output dtype (float16 | bfloat16 | float32)");
  c->add_option("--diverge-type", o.diverge_type, "llama: inject into the --diverge-nth op of this ATB type");
  c->add_option("--diverge-nth", o.diverge_nth, "llama: which op of --diverge-type (0 = first)");
  c->add_flag("--diverge-local", o.diverge_local, "llama: later ops read the uninjected output");
  c->add_flag("--torch-mine", o.torch_mine,
              "llama: also dump the NPU side as torch hooks (torch_npu/), with its noise and injection");
  c->add_flag("--op-params", o.op_params,
              "llama: op_param.json and the weight intensors (Linear weight, RmsNorm gamma) in each leaf op directory");
}

void add_msprobe(CLI::App& app, MsprobeGenOptions& o) {
  auto* c =
      app.add_subcommand("msprobe", "paired msProbe dumps (npu/, bench/) of a toy model, for compact and compare");
  c->add_option("--out", o.out, "output directory (npu/, bench/, scenario.json, manifest.json)")->required();
  c->add_option("--framework", o.framework, "target side: pytorch (.pt) | mindspore (.npy)")
      ->check(CLI::IsMember({"pytorch", "mindspore"}));
  c->add_option("--golden-framework", o.golden_framework, "golden side (default: the target's)")
      ->check(CLI::IsMember({"pytorch", "mindspore"}));
  c->add_option("--task", o.task, "tensor | statistics")->check(CLI::IsMember({"tensor", "statistics"}));
  c->add_option("--summary-mode", o.summary_mode, "statistics | md5 (CRC-32 per tensor)")
      ->check(CLI::IsMember({"statistics", "md5"}));
  c->add_option("--generation", o.generation, "dump.json of msProbe 26 (framework key) or 8 (none, is_recompute)")
      ->check(CLI::IsMember({26, 8}));
  c->add_option("--level", o.level, "L1 | mix (modules around each block, construct.json)")
      ->check(CLI::IsMember({"L1", "mix"}));
  c->add_option("--steps", o.steps, "steps (step{N} folders)");
  c->add_option("--ranks", o.ranks, "ranks (rank{R} folders)");
  c->add_flag("--proc", o.proc_dirs, "proc{PID} folders instead of rank{R} (one rank)");
  c->add_flag("--ms-split", o.ms_split,
              "MindSpore PYNATIVE_GRAPH: the tree under pynative/, at level mix the blocks also under graph/");
  c->add_flag("--backward", o.backward, "backward entries (and parameters_grad at level mix)");
  c->add_option("--ops", o.ops, "ops in the chain");
  c->add_option("--chain", o.chain, "toy | llama (as the model command)")->check(CLI::IsMember({"toy", "llama"}));
  c->add_option("--hidden", o.hidden, "hidden size");
  c->add_option("--rows", o.rows, "rows (batch x sequence)");
  c->add_option("--seed", o.seed, "random seed");
  c->add_option("--dtype", o.dtype, "target dtype (golden: float32)")
      ->check(CLI::IsMember({"float16", "bfloat16", "float32"}));
  c->add_option("--noise", o.noise, "relative kernel noise on every computing op's target output (e.g. 1e-3)");
  c->add_option("--reduced", o.reduced, "TYPE=bfloat16|float16,...: op types computing in lower precision");
  c->add_option("--diverge-at", o.diverge_at, "op index with an injected error (-1: none)");
  c->add_option("--diverge-type", o.diverge_type, "inject into the --diverge-nth op of this op type");
  c->add_option("--diverge-nth", o.diverge_nth, "which op of --diverge-type (0 = first)");
  c->add_option("--diverge-scale", o.diverge_scale, "relative size of the injected error (its RED)");
  c->add_flag("--diverge-local", o.diverge_local, "do not propagate the injected error to later ops");
  c->add_option("--nan-at", o.nan_at, "op whose target output gets a NaN and a +Inf (-1: none)");
  c->add_option("--diverge-backward", o.diverge_backward,
                "with --backward: op whose backward output gradient gets an error of RED --diverge-scale (-1: none)");
}

void add_bigfile(CLI::App& app, BigFileOptions& o) {
  auto* c = app.add_subcommand("bigfile", "one large 1-D tensor file (pth | atb_bin | npy), streamed");
  c->add_option("--out", o.out, "output file")->required();
  c->add_option("--kind", o.kind, "pth | atb_bin | npy")->check(CLI::IsMember({"pth", "atb_bin", "npy"}));
  c->add_option("--dtype", o.dtype, "element type");
  c->add_option("--elements", o.elements, "number of elements");
  c->add_option("--seed", o.seed, "random seed");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"msit-dumpgen: test dump generator and verifier for msit-compact"};
  app.require_subcommand(1);
  TreeOptions tree;
  VerifyOptions verify;
  StreamOptions stream;
  ModelOptions model;
  AtbOptions atb;
  BigFileOptions big;
  MsprobeGenOptions msprobe;
  std::string testdata = MSIT_DUMPGEN_TESTDATA;
  add_tree(app, tree);
  add_verify(app, verify);
  add_stream(app, stream);
  add_model(app, model);
  add_atb(app, atb);
  add_bigfile(app, big);
  add_msprobe(app, msprobe);
  auto* self = app.add_subcommand("selfcheck", "check the generator's own encoders");
  self->add_option("--testdata", testdata, "directory holding sketch_vectors.json");
  CLI11_PARSE(app, argc, argv);
  try {
    if (app.got_subcommand("tree")) return run_tree(tree);
    if (app.got_subcommand("verify")) return run_verify(verify);
    if (app.got_subcommand("stream")) return run_stream(stream);
    if (app.got_subcommand("model")) return run_model(model);
    if (app.got_subcommand("atb")) return atb.model == "llama" ? run_atb_llama(atb) : run_atb(atb);
    if (app.got_subcommand("bigfile")) return run_bigfile(big);
    if (app.got_subcommand("msprobe")) {
      const uint64_t n = write_msprobe_dump(msprobe);
      std::printf("msprobe: %llu tensor files under %s\n", static_cast<unsigned long long>(n), msprobe.out.c_str());
      return 0;
    }
    return run_selfcheck(testdata);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "msit-dumpgen: %s\n", e.what());
    return 2;
  }
}
