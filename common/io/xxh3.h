// Streaming XXH3-64, the one owner of an xxhash state (create, reset, free): payload hashes in
// summaries and the archives' checksums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

struct XXH3_state_s;

namespace msit {

class Xxh3 {
 public:
  Xxh3();
  ~Xxh3();
  Xxh3(const Xxh3&) = delete;
  Xxh3& operator=(const Xxh3&) = delete;

  void update(const void* data, size_t size);
  void update(std::span<const std::byte> bytes) { update(bytes.data(), bytes.size()); }
  uint64_t digest() const;
  std::string hex() const;  // 16 lowercase hex digits

 private:
  XXH3_state_s* st_;
};

}  // namespace msit
