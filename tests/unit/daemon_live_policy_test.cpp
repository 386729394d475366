// The watcher's "already done" check reads the settings a SIGHUP reload changes (keep_raw,
// summary format) at every call: before, a reload reached the compactor but not this check.
#include <gtest/gtest.h>

#include <memory>

#include "daemon/real_compactor.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

TEST(LivePolicy, AlreadyDoneFollowsAReload) {
  testing::TempDir tmp;
  const std::string dir = tmp.path + "/msit_ge_dump/0/graph/1";
  testing::fs::create_directories(dir);
  const std::string raw = dir + "/Add.Add_1.1.6.1706596912100001";
  testing::write_file(raw);
  testing::write_file(summary_path_for(raw, SummaryFormat::kRich), "{}");

  auto live = std::make_shared<LivePolicySettings>();
  const CandidatePolicy policy = engine_policy(live);
  ASSERT_TRUE(policy.is_candidate(dir, "Add.Add_1.1.6.1706596912100001"));

  live->keep_raw = false;
  live->format = SummaryFormat::kRich;
  EXPECT_FALSE(policy.already_done(*file_ref_of_path(raw))) << "raw files are deleted: a raw file left is not done";

  // What Service::reload() does on SIGHUP with `keep_raw = true`: the same policy object sees it.
  live->keep_raw = true;
  EXPECT_TRUE(policy.already_done(*file_ref_of_path(raw))) << "kept raw file with its summary must not be re-read";

  live->format = SummaryFormat::kMsit;  // its summary would have another name: not done yet
  EXPECT_FALSE(policy.already_done(*file_ref_of_path(raw)));
  live->format = SummaryFormat::kStore;  // the store is checked by the compactor, not by name
  EXPECT_FALSE(policy.already_done(*file_ref_of_path(raw)));
}

}  // namespace
}  // namespace msit::daemon
