// Settings of live divergence (`watch DIR --golden GOLDEN`, docs/live-divergence.md): which golden
// each watched root is compared with, where alerts go, and how much raw evidence is kept.
// Filled by daemon/config.cpp (config keys) and cli/watch.cpp (options); read by the live
// comparer (daemon/live_compare.*) and the alert sink (daemon/divergence_alerts.*).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace msit::daemon {

struct LiveGolden {
  std::string root;    // a watched root (as given in `dirs`)
  std::string golden;  // its golden: raw dump, summarised (store/JSON) or being dumped right now
};

struct LiveSettings {
  // One entry per watched root that has a golden; empty: live divergence is off.
  // `--golden G` with one root pairs that root; with several roots, `--golden ROOT=G` per root.
  // Config file: `golden = G` (one root) or `golden = ROOT=G` (repeatable).
  std::vector<LiveGolden> goldens;
  std::string op_mapping_file;  // ATB vs torch: msit's -mf/--op-mapping-file; config op_mapping_file
  std::string events_file;      // --events FILE / events: JSON lines, append-only; empty: none
  std::string on_divergence;    // --on-divergence CMD / on_divergence: argv (no shell); empty: none
  uint32_t on_divergence_interval_s = 60;  // at most one run per interval; later ones logged as skipped
  uint32_t keep_raw_near_divergence = 0;   // --keep-raw-near-divergence N; 0: keep nothing extra
  // Raw bytes held back (not yet deleted) while their op's verdict is unknown; beyond it the oldest
  // held files are compacted as usual and one line is logged (--held-raw-cap / held_raw_cap).
  uint64_t held_raw_cap_bytes = uint64_t{4} << 30;

  bool enabled() const { return !goldens.empty(); }
};

}  // namespace msit::daemon
