// Throughput of msProbe's dump.json reader (docs/formats/msprobe.md §9): a file of N entries
// (one tensor-mode forward entry each: two input records and an output, bare NaN included),
// written once to a temp file and read whole, entries decoded and dropped. Reports MB/s and
// entries/s; memory stays one chunk plus one entry whatever N is (docs/benchmarks.md).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/formats/msprobe_dump_json.h"

namespace {

std::string make_file(int64_t entries) {
  const std::string path = "/tmp/msit-msprobe-bench-" + std::to_string(entries) + ".json";
  std::ofstream out(path, std::ios::trunc);
  out << "{\n \"task\": \"tensor\",\n \"level\": \"L1\",\n \"framework\": \"pytorch\",\n"
         " \"dump_data_dir\": \"./d\",\n \"data\": {\n";
  for (int64_t i = 0; i < entries; ++i) {
    const std::string e = "Torch.matmul." + std::to_string(i) + ".forward";
    auto rec = [&](const char* what, const char* max) {
      return std::string(
                 "    {\n     \"type\": \"torch.Tensor\",\n     \"dtype\": \"torch.bfloat16\",\n"
                 "     \"shape\": [\n      4096,\n      8192\n     ],\n     \"Max\": ") +
             max +
             ",\n     \"Min\": -2.21875,\n     \"Mean\": 0.023604154586791992,\n"
             "     \"Norm\": 15.343186096314854,\n     \"requires_grad\": true,\n     \"data_name\": \"" +
             e + what + ".pt\"\n    }";
    };
    out << (i ? ",\n" : "") << "  \"" << e << "\": {\n   \"input_args\": [\n"
        << rec(".input.0", "2.984375") << ",\n"
        << rec(".input.1", "NaN") << "\n   ],\n   \"input_kwargs\": {},\n   \"output\": [\n"
        << rec(".output.0", "1.5") << "\n   ]\n  }";
  }
  out << "\n }\n}";
  return path;
}

void BM_ReadDumpJson(benchmark::State& state) {
  const std::string path = make_file(state.range(0));
  const int dir = ::open("/tmp", O_RDONLY | O_DIRECTORY);
  const std::string name = path.substr(5);
  uint64_t bytes = 0, entries = 0;
  msit::MsprobeJsonSink sink{nullptr, [&](msit::MsprobeEntry&& e) {
                               entries += e.leaves.size() == 3;
                               return msit::ok_status();
                             }};
  for (auto _ : state) {
    auto r = msit::read_msprobe_json_at(dir, name, path, sink);
    if (!r.ok()) {
      state.SkipWithError(r.error().to_string().c_str());
      break;
    }
    bytes += r->bytes;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["entries/s"] = benchmark::Counter(static_cast<double>(entries), benchmark::Counter::kIsRate);
  ::close(dir);
  std::remove(path.c_str());
}
BENCHMARK(BM_ReadDumpJson)->Arg(20000)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
