// Crafting hostile archives for tests: re-encode a valid archive with its metadata JSON edited
// (or replaced by any text), fixing offsets, index and check hash so only the edit is "wrong".
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace msit::craft {

inline uint64_t get_le(const std::string& b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{static_cast<unsigned char>(b[off + i])} << (8 * i);
  return v;
}

inline void put_le(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Returns the archive with meta_text as its metadata; empty if `archive` is not a well-formed one.
inline std::string with_meta_text(const std::string& archive, const std::string& meta_text) {
  if (archive.size() < 56) return {};
  const uint64_t meta_len = get_le(archive, 12, 4);
  const size_t t = archive.size() - 40;
  const uint64_t index_offset = get_le(archive, t, 8);
  const uint64_t blocks = get_le(archive, t + 8, 8);
  if (16 + meta_len > index_offset || index_offset + blocks * 16 != t) return {};
  const int64_t delta = static_cast<int64_t>(meta_text.size()) - static_cast<int64_t>(meta_len);
  std::string head = archive.substr(0, 12);
  put_le(head, meta_text.size(), 4);
  head += meta_text;
  std::string index;
  for (uint64_t i = 0; i < blocks; ++i) {
    const size_t e = index_offset + i * 16;
    put_le(index, static_cast<uint64_t>(static_cast<int64_t>(get_le(archive, e, 8)) + delta), 8);
    index += archive.substr(e + 8, 8);
  }
  std::string out = head + archive.substr(16 + meta_len, index_offset - 16 - meta_len) + index;
  put_le(out, static_cast<uint64_t>(static_cast<int64_t>(index_offset) + delta), 8);
  put_le(out, blocks, 8);
  out += archive.substr(t + 16, 8);  // XXH3 of the original: unchanged
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  XXH3_64bits_update(st, head.data(), head.size());
  XXH3_64bits_update(st, index.data(), index.size());
  put_le(out, XXH3_64bits_digest(st), 8);
  XXH3_freeState(st);
  out += "MSITAEND";
  return out;
}

inline std::string meta_text_of(const std::string& archive) {
  if (archive.size() < 16) return {};
  return archive.substr(16, get_le(archive, 12, 4));
}

// The archive with its metadata JSON changed by `edit`.
inline std::string with_meta(const std::string& archive, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(meta_text_of(archive), nullptr, false);
  if (!j.is_object()) return {};
  edit(j);
  return with_meta_text(archive, j.dump());
}

}  // namespace msit::craft
