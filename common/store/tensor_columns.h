// Where a statement's result holds each column of the tensors table (store_codec.h).
#pragma once

#include <array>

#include "common/summary/tensor_fields.h"

namespace msit::store {

// Where a statement's result holds each column of the tensors table, found by name once the
// statement is prepared: at[i] for row i of kTensorFields (tensor_fields.h); -1: not selected,
// and left empty (compare's reads select the columns it uses only: each column stepped costs
// ~4% of reading a row).
struct TensorColumns {
  int file_id = -1;
  std::array<int, kTensorFieldCount> at = filled();

 private:
  static constexpr std::array<int, kTensorFieldCount> filled() {
    std::array<int, kTensorFieldCount> a{};
    a.fill(-1);
    return a;
  }
};

}  // namespace msit::store
