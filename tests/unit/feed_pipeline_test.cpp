// The reader/reducer pipeline delivers every batch once, in order, on any depth, and
// propagates the producer's error after the batches that preceded it.
#include "common/stats/feed_pipeline.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace msit {
namespace {

// Produces `total` bytes where byte k is (k * 7 + 3) mod 251, in pieces of at most cap.
struct Counter {
  uint64_t total;
  uint64_t pos = 0;
  Result<size_t> operator()(std::byte* buf, size_t cap) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(cap, total - pos));
    for (size_t i = 0; i < n; ++i) buf[i] = static_cast<std::byte>(((pos + i) * 7 + 3) % 251);
    pos += n;
    return n;
  }
};

std::vector<std::byte> expected(uint64_t total) {
  std::vector<std::byte> v(total);
  for (uint64_t k = 0; k < total; ++k) v[k] = static_cast<std::byte>((k * 7 + 3) % 251);
  return v;
}

TEST(FeedPipelineTest, DeliversEveryByteInOrderForEveryDepth) {
  for (size_t slots : {1u, 2u, 3u, 4u, 8u}) {
    for (uint64_t total : {0ull, 1ull, 999ull, 1000ull, 1001ull, 123457ull}) {
      FeedPipelineOptions o;
      o.batch_bytes = 1000;
      o.slots = slots;
      Counter c{total};
      std::vector<std::byte> got;
      std::thread::id consumer;
      Status st = run_feed_pipeline(o, std::ref(c), [&](const std::byte* b, size_t n) {
        EXPECT_GT(n, 0u);
        EXPECT_LE(n, o.batch_bytes);
        consumer = std::this_thread::get_id();
        got.insert(got.end(), b, b + n);
      });
      ASSERT_TRUE(st.ok()) << st.error().to_string();
      EXPECT_EQ(got, expected(total)) << "slots " << slots << " total " << total;
      if (total > 0) {
        EXPECT_EQ(consumer, std::this_thread::get_id());  // the reducer stays on the caller
      }
    }
  }
}

TEST(FeedPipelineTest, ProducerErrorArrivesAfterEarlierBatches) {
  for (size_t slots : {1u, 4u}) {
    FeedPipelineOptions o;
    o.batch_bytes = 64;
    o.slots = slots;
    int calls = 0;
    size_t consumed = 0;
    Status st = run_feed_pipeline(
        o,
        [&](std::byte* buf, size_t cap) -> Result<size_t> {
          if (++calls == 6) return make_error("/x/file.bin", Stage::kPayload, "short read");
          std::memset(buf, 1, cap);
          return cap;
        },
        [&](const std::byte*, size_t n) { consumed += n; });
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().stage, Stage::kPayload);
    EXPECT_EQ(st.error().path, "/x/file.bin");
    EXPECT_EQ(consumed, 5 * o.batch_bytes);  // the five good batches were all reduced
    EXPECT_EQ(calls, 6);                     // and nothing was read past the error
  }
}

TEST(FeedPipelineTest, ReusedAcrossCallsAndSizes) {
  // The helper thread and buffers are kept per calling thread; a bigger batch than before and
  // a serial call in between must still see fresh, correct data.
  for (size_t batch : {512u, 4096u, 100u, 8192u}) {
    for (size_t slots : {4u, 1u}) {
      FeedPipelineOptions o;
      o.batch_bytes = batch;
      o.slots = slots;
      Counter c{50'000};
      std::vector<std::byte> got;
      ASSERT_TRUE(run_feed_pipeline(o, std::ref(c), [&](const std::byte* b, size_t n) {
                    got.insert(got.end(), b, b + n);
                  }).ok());
      EXPECT_EQ(got, expected(50'000));
    }
  }
}

TEST(FeedPipelineTest, IndependentCallerThreadsDoNotShareState) {
  std::vector<std::thread> ts;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([t, &ok] {
      FeedPipelineOptions o;
      o.batch_bytes = 333 + t;
      Counter c{20'000 + static_cast<uint64_t>(t)};
      std::vector<std::byte> got;
      auto st =
          run_feed_pipeline(o, std::ref(c), [&](const std::byte* b, size_t n) { got.insert(got.end(), b, b + n); });
      ok[t] = st.ok() && got == expected(20'000 + static_cast<uint64_t>(t));
    });
  }
  for (auto& t : ts) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
}

}  // namespace
}  // namespace msit
