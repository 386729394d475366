// msit-archive-craft IN OUT [--set KEY=JSON]... [--del KEY]... [--segments N]: writes a copy of
// archive IN whose metadata is edited as asked (offsets, index and check hash kept consistent),
// for the hostile-archive tests (restore_safety.sh).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/tools/archive_craft/craft.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s IN OUT [--set KEY=JSON] [--del KEY] [--segments N]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string archive((std::istreambuf_iterator<char>(in)), {});
  const std::string out = msit::craft::with_meta(archive, [&](nlohmann::json& j) {
    for (int i = 3; i + 1 < argc; i += 2) {
      const std::string opt = argv[i], arg = argv[i + 1];
      if (opt == "--set") {
        const size_t eq = arg.find('=');
        j[arg.substr(0, eq)] = nlohmann::json::parse(arg.substr(eq + 1));
      } else if (opt == "--del") {
        j.erase(arg);
      } else if (opt == "--segments") {  // N one-byte segments: a count over the reader's cap
        const uint64_t n = std::strtoull(arg.c_str(), nullptr, 10);
        nlohmann::json segs = nlohmann::json::array();
        for (uint64_t k = 0; k < n; ++k) segs.push_back({k, 1, 1});
        j["segments"] = std::move(segs);
        j["original_size"] = n;
      }
    }
  });
  if (out.empty()) {
    std::fprintf(stderr, "%s: not a well-formed archive\n", argv[1]);
    return 1;
  }
  std::ofstream(argv[2], std::ios::binary) << out;
  return 0;
}
