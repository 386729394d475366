// A path's parent directory and last name as text (common/io/path_name.h): dirname(1) and
// basename(1)'s rules, which every caller that splits a path shares.
#include "common/io/path_name.h"

#include <gtest/gtest.h>

namespace msit {
namespace {

TEST(PathName, ParentDir) {
  EXPECT_EQ(parent_dir("a/b/c"), "a/b");
  EXPECT_EQ(parent_dir("a/b/c/"), "a/b");
  EXPECT_EQ(parent_dir("a//b"), "a");
  EXPECT_EQ(parent_dir("c"), ".");
  EXPECT_EQ(parent_dir("/c"), "/");
  EXPECT_EQ(parent_dir("/"), "/");
  EXPECT_EQ(parent_dir(""), ".");
}

TEST(PathName, BaseName) {
  EXPECT_EQ(base_name("a/b/c.npy"), "c.npy");
  EXPECT_EQ(base_name("a/b/"), "b");
  EXPECT_EQ(base_name("c"), "c");
  EXPECT_EQ(base_name("/"), "/");
  EXPECT_EQ(base_name(""), "");
}

TEST(PathName, WithoutTrailingSlashes) {
  EXPECT_EQ(without_trailing_slashes("a/b//"), "a/b");
  EXPECT_EQ(without_trailing_slashes("/"), "/");
  EXPECT_EQ(without_trailing_slashes("//"), "/");
  EXPECT_EQ(without_trailing_slashes("a"), "a");
}

}  // namespace
}  // namespace msit
