// `msit-dumpgen stream`: a live dump at a steady byte rate for the watcher demo and bench.
// Payloads are prefixes of a few pre-generated buffers, so per-file cost is only the writes.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <thread>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_layout.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pb.h"

namespace dumpgen {

namespace {

constexpr int kBuffers = 8, kSizeClasses = 16;

struct Prefix {  // expected values of the first `bytes` bytes of one buffer
  uint64_t bytes = 0, count = 0, nan = 0;
  double min = 0, max = 0;
  std::string xxh3;
};

struct Pool {
  const DTypeSpec* dt;
  std::vector<std::vector<uint8_t>> buf;      // kBuffers x max bytes
  std::vector<std::vector<Prefix>> prefixes;  // kBuffers x kSizeClasses
};

Pool make_pool(Rng& rng, const DTypeSpec& dt, const std::vector<uint64_t>& sizes, uint64_t max) {
  Pool p{&dt, {}, {}};
  uint64_t n = max / dt.bytes;
  for (int b = 0; b < kBuffers; ++b) {
    std::vector<uint8_t> buf(n * dt.bytes);
    double scale = std::ldexp(1.0, b - 3), mean = b == 5 ? 100.0 : 0.0;
    std::vector<Prefix> pre;
    double mn = HUGE_VAL, mx = -HUGE_VAL;
    uint64_t nan = 0, i = 0;
    for (uint64_t s : sizes) {
      for (uint64_t end = s / dt.bytes; i < end; ++i) {
        double v = (b == 7 && i % 997 == 13) ? NAN : mean + scale * rng.normal();
        uint64_t code = encode_value(dt, v);
        store_code(dt, code, &buf[i * dt.bytes]);
        double q = decode_value(dt, code);
        if (std::isnan(q)) {
          ++nan;
          continue;
        }
        mn = std::min(mn, q);
        mx = std::max(mx, q);
      }
      pre.push_back({s, s / dt.bytes, nan, mn, mx, xxh3_hex(buf.data(), s)});
    }
    p.buf.push_back(std::move(buf));
    p.prefixes.push_back(std::move(pre));
  }
  return p;
}

double cpu_seconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

void write_all(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw std::runtime_error(path + ": write: " + std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// A file being written: header then payload in `chunk`-sized write() calls, like a real dumper.
struct OpenFile {
  int fd = -1;
  std::string path, final_path;  // final_path differs when it is renamed into place once closed
  const uint8_t* payload = nullptr;
  uint64_t size = 0, written = 0;
  std::chrono::steady_clock::time_point finish_at{};  // slow writers: when the rest is written
};

void write_up_to(OpenFile& f, uint64_t end, uint64_t chunk) {
  for (; f.written < end; f.written += std::min(chunk, end - f.written)) {
    write_all(f.fd, reinterpret_cast<const char*>(f.payload) + f.written, std::min(chunk, end - f.written), f.path);
  }
}

OpenFile start_file(const std::string& path, const std::string& final_path, const std::string& head,
                    const uint8_t* payload, uint64_t size) {
  OpenFile f{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), path, final_path, payload, size};
  if (f.fd < 0) throw std::runtime_error(path + ": open: " + std::strerror(errno));
  write_all(f.fd, head.data(), head.size(), path);
  return f;
}

void finish_file(OpenFile& f, uint64_t chunk) {
  write_up_to(f, f.size, chunk);
  if (::close(f.fd) != 0) throw std::runtime_error(f.path + ": close: " + std::strerror(errno));
  if (f.path != f.final_path && ::rename(f.path.c_str(), f.final_path.c_str()) != 0) {
    throw std::runtime_error(f.path + ": rename: " + std::strerror(errno));
  }
}

std::string ge_head(const Pool& p, uint64_t size, const std::string& op_name, uint64_t ts) {
  PbTensor t;
  t.data_type = p.dt->ge_proto;
  t.format = kFmtND;
  t.shape = {size / p.dt->bytes};
  t.original_shape = t.shape;
  t.size = size;
  PbHeader h;
  h.dump_time = ts;
  h.op_name = op_name;
  h.outputs.push_back(t);
  std::string header = encode_dump_data(h);
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(header.size() >> (8 * i));
  return out + header;
}

}  // namespace

int run_stream(const StreamOptions& o) {
  if (o.min_size == 0 || o.max_size < o.min_size || o.chunk == 0 || o.rate_mbps <= 0) {
    throw std::runtime_error("stream: need 0 < --min-size <= --max-size, --chunk > 0, --rate > 0");
  }
  Rng rng(o.seed);
  std::vector<uint64_t> sizes;
  for (int k = 0; k < kSizeClasses; ++k) {
    double f = kSizeClasses == 1 ? 0 : static_cast<double>(k) / (kSizeClasses - 1);
    uint64_t s = static_cast<uint64_t>(o.min_size * std::pow(double(o.max_size) / o.min_size, f));
    sizes.push_back(std::max<uint64_t>(64, s / 64 * 64));
  }
  std::vector<Pool> ge_pools, fx_pools;
  for (const auto& name : o.dtypes) {
    const DTypeSpec* dt = find_dtype(name);
    if (!dt || dt->ge_proto == 0) throw std::runtime_error("--dtype: unknown dtype '" + name + "'");
    ge_pools.push_back(make_pool(rng, *dt, sizes, sizes.back()));
    if (!dt->npy_descr.empty() && dt->kind != Kind::kComplex) fx_pools.push_back(ge_pools.back());
  }
  if (fx_pools.empty() && o.fx_fraction > 0) {
    fx_pools.push_back(make_pool(rng, *find_dtype("float32"), sizes, sizes.back()));
  }
  std::string ge_base = o.out + "/msit_ge_dump/worldsize1_global_rank0/" + time14(0) + "/0/graph_1_0/1/";
  std::string fx_base = o.out + "/msit_fx_dump/worldsize1_global_rank0/gm_" + ts20(0) + "_dump/";
  write_file(o.out + "/msit_ge_dump/dynamo_original_graph_1_rank_0_pid_1_ts_" + ts20(0) + ".txt",
             "name: \"graph_1\"\n");
  nlohmann::json files = nlohmann::json::array();
  const double rate = o.rate_mbps * 1e6;
  const double cpu0 = cpu_seconds();  // the pool above is set-up, not part of the stream
  auto start = std::chrono::steady_clock::now();
  uint64_t n_files = 0, n_bytes = 0, renamed = 0;
  std::string made_ge, made_fx;  // step dirs already created
  std::deque<OpenFile> slow;     // slow writers still holding their file, oldest first
  uint64_t n_slow = 0;
  auto finish_due = [&](bool all) {
    while (!slow.empty() && (all || slow.front().finish_at <= std::chrono::steady_clock::now())) {
      if (all) std::this_thread::sleep_until(slow.front().finish_at);
      finish_file(slow.front(), o.chunk);
      slow.pop_front();
    }
  };
  for (;;) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= o.seconds) break;
    double ahead = n_bytes / rate - elapsed;  // steady rate: sleep while ahead of schedule
    if (ahead > 0) std::this_thread::sleep_for(std::chrono::duration<double>(std::min(ahead, 0.05)));
    finish_due(false);
    if (ahead > 0.05) continue;
    bool fx = rng.chance(o.fx_fraction);
    const Pool& pool = fx ? fx_pools[rng.below(fx_pools.size())] : ge_pools[rng.below(ge_pools.size())];
    int b = static_cast<int>(rng.below(kBuffers)), k = static_cast<int>(rng.below(kSizeClasses));
    const Prefix& pre = pool.prefixes[b][k];
    std::string step = std::to_string(n_files / o.files_per_step);
    std::string dir = (fx ? fx_base : ge_base) + step;
    std::string& made = fx ? made_fx : made_ge;
    if (made != dir) {
      make_dirs(dir);
      made = dir;
    }
    std::string name, head;
    uint64_t ts = 1748764800000000ull + n_files;
    if (fx) {
      name = "add_" + std::to_string(n_files) + "-aten.add.Tensor.OUTPUT.0." + ts20(n_files) + ".npy";
      head = npy_header(std::string(pool.dt->npy_descr), {pre.count});
    } else {
      std::string op = "Add_" + std::to_string(n_files);
      name = "Add." + op + "." + std::to_string(n_files % 60000) + ".3." + std::to_string(ts);
      head = ge_head(pool, pre.bytes, op, ts);
    }
    bool rename = rng.chance(o.rename_fraction);
    std::string final_path = dir + "/" + name;
    std::string path = rename ? dir + "/." + name + ".part" : final_path;
    OpenFile f = start_file(path, final_path, head, pool.buf[b].data(), pre.bytes);
    if (o.slow_fraction > 0 && rng.chance(o.slow_fraction)) {  // no draw without slow writers: same files as before
      write_up_to(f, pre.bytes / 2, o.chunk);
      f.finish_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.slow_ms);
      slow.push_back(std::move(f));
      ++n_slow;
    } else {
      finish_file(f, o.chunk);
    }
    finish_due(false);
    renamed += rename;
    ++n_files;
    n_bytes += head.size() + pre.bytes;
    if (!o.manifest.empty()) {
      nlohmann::json t = {{"role", "output"},
                          {"index", 0},
                          {"dtype", pool.dt->name},
                          {"shape", {pre.count}},
                          {"original_shape", {pre.count}},
                          {"format", "ND"},
                          {"count", pre.count},
                          {"nan_count", pre.nan},
                          {"min", pre.min},
                          {"max", pre.max},
                          {"xxh3_64", pre.xxh3},
                          {"device_format", false},
                          {"stats", true},
                          {"partial", true}};
      files.push_back({{"path", final_path.substr(o.out.size() + 1)},
                       {"kind", fx ? "npy" : "ge_bin"},
                       {"corrupt", false},
                       {"size", head.size() + pre.bytes},
                       {"tensors", {t}}});
    }
  }
  finish_due(true);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.manifest.empty()) {
    write_file(
        o.manifest,
        nlohmann::json{{"tool", "msit-dumpgen"}, {"command", "stream"}, {"manifest_version", 1}, {"files", files}}.dump(
            1));
  }
  const double cpu = cpu_seconds() - cpu0;
  std::printf(
      "stream: %llu files, %llu bytes in %.2f s (%.1f MB/s), %llu renamed into place, %llu slow writers, "
      "generator CPU %.2f s (%.0f%% of one core)\n",
      static_cast<unsigned long long>(n_files), static_cast<unsigned long long>(n_bytes), secs, n_bytes / secs / 1e6,
      static_cast<unsigned long long>(renamed), static_cast<unsigned long long>(n_slow), cpu, 100 * cpu / secs);
  return 0;
}

}  // namespace dumpgen
