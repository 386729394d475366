// Settings of live divergence (`watch DIR --golden GOLDEN`, docs/live-divergence.md): which golden
// each watched root is compared with, where alerts go, and how much raw evidence is kept.
// Filled by daemon/config.cpp (config keys) and cli/watch.cpp (options); read by the live
// comparer (daemon/live_compare.*) and the alert sink (daemon/divergence_alerts.*).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

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
  // ATB vs torch: msit's -mf/--op-mapping-file (the directory holding op_mapping_file.json, as for
  // compare); config op_mapping_file
  std::string op_mapping_file;
  std::string events_file;                 // --events FILE / events: JSON lines, append-only; empty: none
  std::string on_divergence;               // --on-divergence CMD / on_divergence: argv (no shell); empty: none
  uint32_t on_divergence_interval_s = 60;  // at most one run per interval; later ones logged as skipped
  uint32_t keep_raw_near_divergence = 0;   // --keep-raw-near-divergence N; 0: keep nothing extra
  bool recompute = false;                  // --recompute: opcheck's verdicts in each divergence event
  // Raw bytes held back (not yet deleted) while their op's verdict is unknown; beyond it the oldest
  // held files are compacted as usual and one line is logged (--held-raw-cap / held_raw_cap).
  uint64_t held_raw_cap_bytes = uint64_t{4} << 30;

  bool enabled() const { return !goldens.empty(); }
};

// Ranges of the live settings (config keys and options alike).
inline constexpr uint32_t kKeepRawNearDivergenceMax = 100'000;
inline constexpr uint32_t kOnDivergenceIntervalMaxS = 86'400;

// A `golden` value or `--golden` argument: "G", or "ROOT=G" split at the first '=' (a golden
// whose path has a '=' in it is given as ROOT=G).
LiveGolden parse_golden_spec(std::string_view text);

struct LiveCheck {
  // What the errors name: "--golden" or the config file.
  std::string source;
  // The roots come from the command line and the goldens from the config file, which the
  // systemd unit shares between its instances: a `golden = ROOT=G` for another instance's root
  // is skipped there instead of refused.
  bool skip_other_roots = false;
};

// Once the watched roots are known (absolute, as the watch uses them): a bare G gets the only
// root; every golden is made absolute; refused with an error naming the setting: a golden that
// exists and is not a directory, a golden inside a watched root or a watched root inside it, a
// ROOT that is not watched, a bare G with several roots, a root given two goldens, an
// op_mapping_file that is not a directory. Checked again on every reload.
Status check_live_settings(LiveSettings& live, const std::vector<std::string>& roots, const LiveCheck& c);

}  // namespace msit::daemon
