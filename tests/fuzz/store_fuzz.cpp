// libFuzzer target: a summary store read from arbitrary bytes (a crafted or damaged database
// under the store's name). Must never crash or hang; every entry it accepts must convert to a
// summary JSON that reads back (export and inspect print stored entries that way).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/store/summary_store.h"
#include "common/summary/summary.h"

namespace {

// One directory per process, removed at exit.
struct ScratchDir {
  std::string path = std::filesystem::temp_directory_path().string() + "/msit-store-fuzz." + std::to_string(::getpid());
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace msit;
  const std::string db = scratch_dir() + "/" + std::string(kStoreFileName);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((db + suffix).c_str());
  if (std::FILE* f = std::fopen(db.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  auto store = store::SummaryStore::open_read_only(db);
  if (!store.ok()) return 0;
  size_t seen = 0;
  (void)(*store)->for_each([&](std::string_view rel, const FileSummary& s) -> Status {
    const std::string json = summary_to_json(s);
    if (!summary_from_json(json, std::string(rel)).ok()) __builtin_trap();
    return ++seen < 64 ? ok_status() : make_error("", Stage::kNone, "enough");
  });
  return 0;
}
