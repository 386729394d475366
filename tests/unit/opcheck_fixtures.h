// The float32 linear the opcheck front-end tests write in each front end's format (an ATB op
// directory, an msProbe dump.json entry): one set of values, so both check the same op.
#pragma once

#include <cstddef>
#include <vector>

#include "tests/unit/compare_fixtures.h"

namespace opcheck_test {

// x [4, 6], weight [5, 6], bias [5]; y = x w^T + b summed in float32, with element `corrupt`
// (-1: none) made 2% wrong.
struct Linear {
  std::vector<float> x, w, b, y;
};

inline Linear linear_4x6_to_5(int corrupt) {
  Linear l{compare_test::random_values(24, 3), compare_test::random_values(30, 4), compare_test::random_values(5, 5),
           std::vector<float>(20)};
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = 0; j < 5; ++j) {
      float s = 0;
      for (size_t k = 0; k < 6; ++k) s += l.x[i * 6 + k] * l.w[j * 6 + k];
      l.y[i * 5 + j] = s + l.b[j];
    }
  }
  if (corrupt >= 0) l.y[static_cast<size_t>(corrupt)] *= 1.02f;
  return l;
}

}  // namespace opcheck_test
