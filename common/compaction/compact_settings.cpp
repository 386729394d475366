// CompactSettings -> CompactOptions, for both the `compact` command and the watch daemon.
#include "common/compaction/compact_settings.h"

namespace msit {

CompactOptions compact_options(const CompactSettings& s) {
  CompactOptions c;
  c.format = s.format;
  c.raw = s.archive ? RawAction::kArchive : s.keep_raw ? RawAction::kKeep : RawAction::kDelete;
  c.archive.level = s.zstd_level;
  c.archive.workers = s.zstd_workers;
  c.stats.sketch_width = s.sketch_width;
  c.store_sketch = s.sketch_bits == 64 ? store::SketchPrecision::kFloat64 : store::SketchPrecision::kFloat32;
  return c;
}

}  // namespace msit
