// Where a statement's result holds each column of the tensors table (store_codec.h).
#pragma once

namespace msit::store {

// Where a statement's result holds each column of the tensors table, found by name once the
// statement is prepared; -1: not selected, and left empty (compare's reads select the columns
// it uses only: each column stepped costs ~4% of reading a row).
struct TensorColumns {
  int file_id = -1, role = -1, idx = -1, sub_index = -1, dtype = -1, shape = -1, format = -1, original_shape = -1,
      count = -1, padding_included = -1, stats_available = -1, l2norm_available = -1, note = -1, min = -1, max = -1,
      min_int = -1, max_int = -1, min_uint = -1, max_uint = -1, mean = -1, std = -1, abs_max = -1, l2norm = -1,
      sum = -1, finite_count = -1, nan_count = -1, posinf_count = -1, neginf_count = -1, zero_count = -1, elements = -1,
      sketch_width = -1, sketch_seed = -1, sketch = -1, xxh3_64 = -1;
};

}  // namespace msit::store
