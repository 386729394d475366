// `msit-compact restore PATH...`: archives (NAME.zst) back to their byte-identical raw files.
#include <sys/stat.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/human.h"
#include "common/archive/archive_source.h"
#include "common/archive/restore.h"
#include "common/io/tree_walk.h"

namespace msit::cli {
namespace {

struct RestoreArgs {
  std::vector<std::string> paths;
  bool keep_archive = false;
  bool json = false;
};

// Archives named on the command line, or found (without following links) under directories.
std::vector<std::string> collect_archives(const std::vector<std::string>& paths, std::vector<Error>& errors) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      errors.push_back(make_sys_error(p, "restore", "cannot stat", errno));
    } else if (S_ISDIR(st.st_mode)) {
      walk_tree(p, [&out](const WalkEntry& e) {
        if (e.type == EntryType::kFile && archive::is_archive_path(e.name) && e.name[0] != '.') out.push_back(e.path);
      }, errors);
    } else if (archive::is_archive_path(p)) {
      out.push_back(p);
    } else {
      errors.push_back(make_error(p, "restore", "not an archive (archives are named NAME.zst)"));
    }
  }
  return out;
}

int run(const RestoreArgs& a) {
  std::vector<Error> errors;
  const std::vector<std::string> archives = collect_archives(a.paths, errors);
  archive::RestoreOptions opts;
  opts.keep_archive = a.keep_archive;
  nlohmann::json restored = nlohmann::json::array();
  uint64_t bytes = 0;
  for (const auto& path : archives) {
    auto r = archive::restore_archive(path, opts);
    if (!r.ok()) {
      errors.push_back(r.take_error());
      continue;
    }
    bytes += r->raw_bytes;
    restored.push_back({{"archive", r->archive_path}, {"raw", r->raw_path}, {"bytes", r->raw_bytes},
                        {"already_present", r->already_present}, {"archive_removed", r->archive_removed}});
  }
  if (a.json) {
    nlohmann::json j = {{"restored", restored}, {"failures", nlohmann::json::array()}};
    for (const auto& e : errors) j["failures"].push_back({{"path", e.path}, {"reason", e.to_string()}});
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("restored %zu of %zu archives (%s)%s\n", restored.size(), archives.size(),
                human_bytes(bytes).c_str(), a.keep_archive ? ", archives kept" : "");
    for (const auto& e : errors) std::fprintf(stderr, "FAILED: %s\n", e.to_string().c_str());
  }
  if (archives.empty() && errors.empty()) std::fprintf(stderr, "no archives found\n");
  return errors.empty() ? kExitOk : kExitFailures;
}

}  // namespace

CLI::App* register_restore(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RestoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "restore", "Turn archives made by --archive (NAME.zst) back into the byte-identical raw files");
  cmd->add_option("paths", args->paths, "Archives, or directories searched for them (links never followed)")->required();
  cmd->add_flag("--keep-archive", args->keep_archive, "Keep the archives after restoring");
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
  return cmd;
}

}  // namespace msit::cli
