// Which store versions this build writes and reads (docs/store.md, "Versioning").
#pragma once

#include <cstdint>

namespace msit::store {

// Version of the stores this build creates. Version 1 (paths in full on every file row, tensor
// rows in a WITHOUT ROWID table) is still read, and appended to in its own form.
inline constexpr int kStoreVersion = 2;
inline constexpr int kOldestStoreVersion = 1;
inline constexpr int32_t kStoreApplicationId = 0x6d736974;  // "msit"

// Version 2's tensors.key: files.id * kTensorKeyScale + the tensor's position in its file.
inline constexpr int64_t kTensorKeyScale = int64_t{1} << 20;

}  // namespace msit::store
