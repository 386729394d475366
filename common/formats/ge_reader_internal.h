// Shared pieces of the GE dump readers (big-dump layout and legacy whole-file protobuf):
// the conversion of header messages to TensorDesc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"
#include "dump_data.pb.h"

namespace msit::ge_internal {

using msit::ByteSource;
using msit::MemorySource;

// Header messages -> descriptors. Payload offset/size are filled in by the caller.
TensorDesc desc_from_input(const dumpdata::OpInput& in, uint32_t index);
TensorDesc desc_from_output(const dumpdata::OpOutput& out, uint32_t index);
// Buffers and workspaces are raw byte blocks: uint8 of shape [size].
TensorDesc desc_raw_block(Role role, uint32_t index, uint64_t size);

// The oldest schema put workspaces in field 7 (now `attr`): true when the entries of field 7
// look like workspaces (see docs/formats-notes.md).
bool attrs_are_legacy_spaces(const dumpdata::DumpData& d);

// Whole file = one DumpData with the payloads embedded in `data` fields (pre-2.0 dumps).
// Never loads payloads: records the file offset and length of each `data` field.
Result<RawDumpFile> parse_legacy_whole_protobuf(ByteSource& src, uint64_t file_size, const std::string& path);

// Big-dump layout first, then the legacy layout (docs/formats/ge-dump.md §2).
Result<RawDumpFile> parse_ge(ByteSource& src, uint64_t file_size, const std::string& path);

}  // namespace msit::ge_internal
