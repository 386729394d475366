// libFuzzer target: the archive container parser and block decoder on arbitrary bytes.
// Must never crash, hang or allocate without bound; any input either decodes to bytes whose
// XXH3 matches the trailer or is rejected with an error. Seeds hostile_* are crafted metadata
// (setuid/sticky modes, owners, block counts over the cap, traversal names, deep nesting).
#include <cstddef>
#include <cstdint>

#include "common/archive/archive_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace msit;
  auto bytes = std::make_unique<MemorySource>(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size), "fuzz.npy.zst");
  FileIdentity id;
  id.size = size;
  auto a = archive::ArchiveSource::open(std::move(bytes), id);
  if (!a.ok()) return 0;
  // Whatever was accepted lies inside the hostile-input caps (issue 12).
  const archive::Meta& m = (*a)->meta();
  if (m.original_mode > 07777 || m.segments.size() > archive::kMaxSegments ||
      archive::count_blocks(m) > archive::kMaxBlocks || m.original_name.empty() ||
      m.original_name.find('/') != std::string::npos ||
      (m.has_owner && (m.original_uid == 0xffffffffu || m.original_gid == 0xffffffffu))) {
    __builtin_trap();
  }
  (void)(*a)->verify();
  std::byte buf[64];
  const uint64_t n = (*a)->size();
  if (n >= sizeof buf) (void)(*a)->read_at(n / 2 - (n / 2) % 8, buf, Stage::kRead);
  return 0;
}
