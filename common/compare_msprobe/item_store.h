// The rows of one side of an msProbe compare, held compactly for the whole compare (msProbe
// matches over whole files, docs/formats/msprobe-compare.md §8): each MsprobeItem packed into a
// few dozen bytes of an arena and unpacked when a chunk of the report needs it. An MsprobeItem
// is 440 bytes plus its strings; a packed one ~100 with its index (docs/benchmarks.md, "msProbe:
// both sides' rows packed").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/compare_msprobe/item.h"

namespace msit {

class MsItemStore {
 public:
  // Items of one entry are added one after another (a dump.json entry's rows are contiguous).
  void add(const MsprobeItem& it);
  size_t size() const { return items_.size(); }
  // The item as it was added, bit for bit.
  MsprobeItem at(size_t i) const;
  MsprobeItem operator[](size_t i) const { return at(i); }
  // The entry (dump.json key) item i belongs to, without unpacking the item.
  std::string_view entry(size_t i) const;

 private:
  // Where a packed record starts: block and offset (a record never spans blocks).
  struct Ref {
    uint32_t block = 0, offset = 0;
  };
  struct Entry {
    uint32_t first_item = 0;
    Ref name;
    uint64_t order = 0;
  };
  Ref put(std::string_view bytes);
  const char* get(Ref r) const { return blocks_[r.block].get() + r.offset; }
  uint32_t intern(std::vector<std::string>& table, std::unordered_map<std::string, uint32_t>& index,
                  const std::string& s);
  const Entry& entry_of(size_t i) const;
  std::string_view entry_name(const Entry& e) const;

  // Blocks of kBlockBytes (or one record's size when larger): no reallocation copies the arena,
  // and no more than one block is partly empty.
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0, capacity_ = 0;  // of the last block
  std::vector<Ref> items_;
  std::vector<Entry> entries_;
  // dtype and shape texts repeat across a dump: each is held once.
  std::vector<std::string> dtypes_, shapes_;
  std::unordered_map<std::string, uint32_t> dtype_index_, shape_index_;
  std::string scratch_;  // the record being packed
};

}  // namespace msit
