// One side of an msProbe compare: a dump.json read (streamed, by the msProbe reader) into
// msProbe's compare rows (docs/formats/msprobe-compare.md §2), and which mode two sides select.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_msprobe/item_store.h"
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

// The same side with its rows packed (item_store.h): what a compare holds for the whole pair.
struct MsprobeCompactSide {
  std::string json_path;
  std::string rank_dir;
  MsprobeHeader header;
  MsItemStore items;
  bool has_md5 = false;
};

// The rows of one entry, in msProbe's order (inputs, parameters, outputs, parameter gradients);
// none for an entry whose name has no direction.
void append_entry_items(const MsprobeEntry& e, std::vector<MsprobeItem>& out);

Result<MsprobeSide> read_msprobe_side(const std::string& dump_json_path);
// The same, each row packed as it is read: the side's MsprobeItems are never all held.
Result<MsprobeCompactSide> read_msprobe_compact_side(const std::string& dump_json_path);
// A side read whole, packed (the side itself is kept by its caller).
MsprobeCompactSide compact_side(const MsprobeSide& side);

// The mode two sides are compared in: real data when both are tensor dumps, md5 when both carry
// CRCs, statistics otherwise (msProbe refuses a tensor dump against a statistics dump; its
// statistics are compared here).
MsMode ms_mode_of(const MsprobeSide& npu, const MsprobeSide& bench);
MsMode ms_mode_of(const MsprobeCompactSide& npu, const MsprobeCompactSide& bench);

}  // namespace msit
