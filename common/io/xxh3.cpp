// Streaming XXH3-64, the one owner of an xxhash state (create, reset, free).
#include "common/io/xxh3.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t as a complete type: allocated by new, like any object
#include <xxhash.h>

#include <cstdio>

namespace msit {

Xxh3::Xxh3() : st_(new XXH3_state_t) {
  XXH3_INITSTATE(st_);
  XXH3_64bits_reset(st_);
}

Xxh3::~Xxh3() { delete st_; }

void Xxh3::update(const void* data, size_t size) { XXH3_64bits_update(st_, data, size); }

uint64_t Xxh3::digest() const { return XXH3_64bits_digest(st_); }

std::string Xxh3::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(digest()));
  return buf;
}

}  // namespace msit
