// One side of an msProbe compare: a dump.json read (streamed, by the msProbe reader) into
// msProbe's compare rows (docs/formats/msprobe-compare.md §2), and which mode two sides select.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_msprobe/row.h"
#include "common/formats/msprobe_dump_json.h"

namespace msit {

struct MsprobeSide {
  std::string json_path;  // the dump.json
  std::string rank_dir;   // its directory (the tensor files are in rank_dir/dump_tensor_data)
  MsprobeHeader header;
  std::vector<MsprobeItem> items;
  bool has_md5 = false;  // some tensor record carries a CRC-32
};

// The rows of one entry, in msProbe's order (inputs, parameters, outputs, parameter gradients);
// none for an entry whose name has no direction.
void append_entry_items(const MsprobeEntry& e, std::vector<MsprobeItem>& out);

Result<MsprobeSide> read_msprobe_side(const std::string& dump_json_path);

// The mode two sides are compared in: real data when both are tensor dumps, md5 when both carry
// CRCs, statistics otherwise (msProbe refuses a tensor dump against a statistics dump; its
// statistics are compared here).
MsMode ms_mode_of(const MsprobeSide& npu, const MsprobeSide& bench);

}  // namespace msit
