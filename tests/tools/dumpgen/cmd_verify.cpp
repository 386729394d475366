// `msit-dumpgen verify`: every manifest entry against what compact left in the tree.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include "common/store/store_catalog.h"
#include "common/summary/summary.h"
#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/verify_check.h"

namespace dumpgen {

namespace {

bool exists_nofollow(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

// The summary a store holds for raw file `full`, in its JSON form (docs/formats/summary.md), or "". Stores
// are read with the library's reader: the values are still checked against the manifest.
std::string stored_summary_json(const std::string& full) {
  const std::optional<msit::store::StoredFile> n = msit::store::StoreCatalog::instance().find(full);
  if (!n) return {};
  auto s = msit::store::StoreCatalog::instance().load(*n->db, n->id);
  return s.ok() ? msit::summary_to_json(*s) : std::string();
}

std::string min_max_name(const nlohmann::json& e, const std::string& full) {
  if (e["kind"] == "npy") return full.substr(0, full.size() - 4) + "_min_max.npy";
  return full + "_min_max.npz";
}

void check_untouched(Checker& c, const nlohmann::json& e, const std::string& full) {
  if (!exists_nofollow(full)) {
    c.fail("file", "missing (must be left alone)");
    return;
  }
  std::string bytes = read_file_bytes(full);
  if (bytes.size() != e["size"].get<uint64_t>() ||
      xxh3_hex(bytes.data(), bytes.size()) != e["xxh3_64"].get<std::string>()) {
    c.fail("file", "content changed (must be byte-identical)");
  }
  if (exists_nofollow(full + ".summary.json")) c.fail("summary", "written for a corrupt file");
  if (!stored_summary_json(full).empty()) c.fail("summary", "stored for a corrupt file");
}

bool has_opaque_tensor(const nlohmann::json& e) {
  for (const auto& t : e["tensors"]) {
    if (!t["stats"].get<bool>()) return true;
  }
  return false;
}

void check_raw(Checker& c, const VerifyOptions& o, const nlohmann::json& e, const std::string& full) {
  bool raw_present = exists_nofollow(full);
  // msit's [min, max] is undefined for complex tensors: compact may refuse such files (the raw
  // file must then stay) or write something; both are accepted.
  if (o.format == "msit" && has_opaque_tensor(e) && !exists_nofollow(min_max_name(e, full))) {
    if (!raw_present) c.fail("raw", "removed although no _min_max file was written");
    ++c.skipped_nostats;
    return;
  }
  if (o.expect_raw_gone && raw_present) c.fail("raw", "still present");
  if (o.expect_raw_kept && !raw_present) c.fail("raw", "was removed");
  std::string sum = o.format == "msit" ? min_max_name(e, full) : full + ".summary.json";
  std::string bytes;
  if (exists_nofollow(sum)) {
    bytes = read_file_bytes(sum);
  } else if (o.format != "msit") {
    bytes = stored_summary_json(full);
    c.sketch_rel = 1.2e-7;
  }
  if (bytes.empty()) {
    c.fail("summary", "missing: " + sum + " (and in no summary store)");
    return;
  }
  if (o.format == "msit") {
    check_min_max_file(c, e, bytes);
    return;
  }
  nlohmann::json s = nlohmann::json::parse(bytes, nullptr, false);
  if (s.is_discarded() || !s.is_object()) {
    c.fail("summary", "not a JSON object");
    return;
  }
  check_rich_summary(c, e, s);
}

}  // namespace

int run_verify(const VerifyOptions& o) {
  nlohmann::json m = nlohmann::json::parse(read_file_bytes(o.manifest));
  uint64_t passed = 0, failed = 0, printed = 0, padding = 0, nostats = 0, tensors = 0;
  uint64_t corrupt = 0;
  for (const auto& e : m["files"]) {
    std::string rel = e["path"].get<std::string>();
    std::string full = o.tree + "/" + rel;
    Checker c{rel, {}, 0, 0, 0, 1e-9};
    try {
      if (e.value("corrupt", false) || e["kind"] == "graph_txt") {
        corrupt += e.value("corrupt", false) ? 1 : 0;
        check_untouched(c, e, full);
      } else {
        check_raw(c, o, e, full);
      }
    } catch (const std::exception& ex) { c.fail("exception", ex.what()); }
    padding += c.skipped_padding;
    nostats += c.skipped_nostats;
    tensors += c.tensors_checked;
    if (c.errors.empty()) {
      ++passed;
      continue;
    }
    ++failed;
    for (const auto& err : c.errors) {
      if (printed++ < static_cast<uint64_t>(o.max_errors)) std::printf("FAIL %s: %s\n", rel.c_str(), err.c_str());
    }
  }
  // A finished run leaves no temp files (common/io/atomic_write.h prefix).
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(o.tree, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().rfind(".msit-tmp.", 0) == 0) {
      ++failed;
      if (printed++ < static_cast<uint64_t>(o.max_errors))
        std::printf("FAIL %s: stale temp file left behind\n", it->path().c_str());
    }
  }
  if (printed > static_cast<uint64_t>(o.max_errors)) {
    std::printf("... %llu more failure lines not shown\n", static_cast<unsigned long long>(printed - o.max_errors));
  }
  std::printf(
      "%llu passed, %llu failed (%llu corrupt/other files checked untouched; %llu tensors "
      "value-checked, %llu skipped: padding included, %llu skipped: no stats)\n",
      static_cast<unsigned long long>(passed), static_cast<unsigned long long>(failed),
      static_cast<unsigned long long>(corrupt), static_cast<unsigned long long>(tensors),
      static_cast<unsigned long long>(padding), static_cast<unsigned long long>(nostats));
  return failed == 0 ? 0 : 1;
}

}  // namespace dumpgen
