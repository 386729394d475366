// torch.save .pth files (docs/formats/atb-torch.md §1.3) as a RawDumpFile: the stored ZIP's directory, the
// pickle of one tensor, and where its view lies in the storage member. No Python, no libtorch.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"

namespace msit {

// One tensor: dtype from the storage class, shape = size, strides kept when the view is not
// contiguous (TensorDesc::strides; the layout readers then gather in logical order). Role and
// index come from the hook's file name (input_{i}, output[_{i}[_{j}]]), else output 0.
// Content outside the subset is a stage "header" error "unsupported .pth content: ...";
// a ZIP without its end record (torch.save still writing) is stage "incomplete".
Result<RawDumpFile> read_pth_header(ByteSource& src, const FileIdentity& id);

// In-memory variant for fuzzers and tests (the whole file).
Result<RawDumpFile> parse_pth_bytes(std::span<const std::byte> file, const std::string& path);

}  // namespace msit
