// What the live comparer's passes read of a listed tree and of the filesystem: every file of a
// token, an mtime, the wall clock (docs/live-divergence.md "A pass", "Cost: what a pass reads").
#pragma once

#include <cstdint>
#include <ctime>

#include <sys/stat.h>

#include "common/compare/dump_index.h"

namespace msit::daemon {

// Calls fn(file) for every file of a token: GE ops, then each FX node's inputs and outputs.
template <class Fn>
void for_each_token_file(const TokenFiles& tf, Fn&& fn) {
  for (const auto& [op, f] : tf.ge_ops) fn(f);
  for (const auto& [node, files] : tf.fx_nodes) {
    for (const auto& f : files.inputs) fn(f);
    for (const auto& f : files.outputs) fn(f);
  }
}

inline int64_t mtime_ns(const struct ::stat& st) {
  return int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}

// The wall clock (file times are on it; the passes' own clock is the steady one).
inline int64_t wall_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace msit::daemon
