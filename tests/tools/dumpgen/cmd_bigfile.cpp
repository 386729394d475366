// `msit-dumpgen bigfile`: one large 1-D tensor as .pth, ATB .bin or .npy, streamed from a 1 MiB
// block of random values repeated (bounded memory at any size), for throughput and RSS benches.
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_atb_bin.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pth.h"
#include "tests/tools/dumpgen/gen_tensor.h"

namespace dumpgen {

int run_bigfile(const BigFileOptions& o) {
  const DTypeSpec* dt = find_dtype(o.dtype);
  if (!dt) throw std::runtime_error("bigfile: unknown dtype " + o.dtype);
  const uint64_t bytes = o.elements * dt->bytes;
  std::string block((1u << 20) / dt->bytes * dt->bytes, '\0');
  Rng rng(o.seed);
  for (size_t i = 0; i < block.size() / dt->bytes; ++i) {
    store_code(*dt, encode_value(*dt, rng.normal()), reinterpret_cast<uint8_t*>(block.data() + i * dt->bytes));
  }
  auto fill = [&](std::ostream& out) {
    for (uint64_t done = 0; done < bytes;) {
      const uint64_t n = std::min<uint64_t>(block.size(), bytes - done);
      out.write(block.data(), static_cast<std::streamsize>(n));
      done += n;
    }
  };
  if (o.kind == "pth") {
    write_pth(o.out, "output", pth_pickle(torch_storage_of(*dt), {o.elements}), bytes, fill);
  } else {
    std::ofstream f(o.out, std::ios::binary | std::ios::trunc);
    if (o.kind == "npy") {
      if (dt->npy_descr.empty()) throw std::runtime_error("bigfile: npy cannot carry " + o.dtype);
      f << npy_header(std::string(dt->npy_descr), {o.elements});
    } else if (o.kind == "atb_bin") {
      f << atb_bin_header(acl_dtype_of(*dt), 2, {o.elements}, bytes);
    } else {
      throw std::runtime_error("bigfile: --kind must be pth, atb_bin or npy");
    }
    fill(f);
    f.close();
    if (!f) throw std::runtime_error(o.out + ": write failed");
  }
  std::printf("bigfile: %s, %llu x %s\n", o.out.c_str(), static_cast<unsigned long long>(o.elements), o.dtype.c_str());
  return 0;
}

}  // namespace dumpgen
