// LogicalReader::read_elements_at (common/layout/reader_base.cpp): offered only when a plain
// reader may be read from several threads at once (compare reads a large pair's units that way,
// common/compare/evaluate.cpp), returns exactly the asked elements, and fails naming the file
// on a truncated payload or a range past the tensor.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/layout/logical_stream.h"

namespace msit {
namespace {

constexpr uint64_t kOffset = 7;  // odd on purpose: positional reads must add the payload offset
constexpr size_t kElements = 1000;

struct TempTensor {
  std::string path;
  int fd = -1;
  std::vector<float> values;
  TensorDesc t;

  TempTensor() {
    char name[] = "/tmp/layout_positional_XXXXXX";
    fd = ::mkstemp(name);
    path = name;
    values.resize(kElements);
    for (size_t i = 0; i < kElements; ++i) values[i] = static_cast<float>(i) * 0.5f - 3.0f;
    std::vector<std::byte> bytes(kOffset, std::byte{0x5a});
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    bytes.insert(bytes.end(), p, p + kElements * sizeof(float));
    EXPECT_EQ(::pwrite(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    t.dtype = DType::kFloat32;
    t.shape = t.original_shape = {kElements};
    t.payload_offset = kOffset;
    t.payload_size = kElements * sizeof(float);
  }
  ~TempTensor() {
    ::close(fd);
    ::unlink(path.c_str());
  }
  std::unique_ptr<LogicalReader> open(SourcePtr src = nullptr) const {
    auto plan = plan_layout(t, path);
    EXPECT_TRUE(plan.ok());
    auto r = src ? LogicalReader::open(std::move(src), t, *plan) : LogicalReader::open(fd, path, t, *plan);
    EXPECT_TRUE(r.ok());
    return std::move(r).value();
  }
};

// A source like an archive's: correct bytes, but not safe to read from two threads.
class SequentialOnly final : public ByteSource {
 public:
  SequentialOnly(int fd, std::string path, uint64_t size) : file_(fd, std::move(path), size) {}
  Status read_at(uint64_t off, std::span<std::byte> out, Stage stage) override {
    return file_.read_at(off, out, stage);
  }
  uint64_t size() const override { return file_.size(); }
  const std::string& path() const override { return file_.path(); }

 private:
  FileSource file_;
};

std::vector<float> read_at(LogicalReader& r, uint64_t first, size_t n) {
  std::vector<float> out(n);
  auto st = r.read_elements_at(first, reinterpret_cast<std::byte*>(out.data()), n);
  EXPECT_TRUE(st.ok()) << st.error().to_string();
  return out;
}

TEST(LayoutPositional, PlainFileReaderReadsAnyRangeFromSeveralThreads) {
  TempTensor f;
  auto r = f.open();
  ASSERT_TRUE(r->positional());
  const std::vector<float> mid(f.values.begin() + 100, f.values.begin() + 150);
  EXPECT_EQ(read_at(*r, 100, 50), mid);
  std::vector<float> a, b;  // two threads, disjoint halves, one reader
  std::thread other([&] { a = read_at(*r, 0, kElements / 2); });
  b = read_at(*r, kElements / 2, kElements / 2);
  other.join();
  a.insert(a.end(), b.begin(), b.end());
  EXPECT_EQ(a, f.values);
  // Positional reads leave the sequential stream where it was.
  std::vector<float> all(kElements);
  auto n = r->read(reinterpret_cast<std::byte*>(all.data()), kElements);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, kElements);
  EXPECT_EQ(all, f.values);
}

TEST(LayoutPositional, PastTheTensorOrTruncatedFileIsAnErrorNamingTheFile) {
  TempTensor f;
  auto r = f.open();
  ASSERT_TRUE(r->positional());
  std::vector<float> out(kElements);
  auto* dst = reinterpret_cast<std::byte*>(out.data());
  auto past = r->read_elements_at(kElements - 10, dst, 20);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().to_string().find("fewer elements than the header promises"), std::string::npos);
  EXPECT_NE(past.error().to_string().find(f.path), std::string::npos);

  ASSERT_EQ(::ftruncate(f.fd, static_cast<off_t>(kOffset + kElements * sizeof(float) / 2)), 0);
  auto cut = r->read_elements_at(kElements - 100, dst, 100);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().to_string().find(f.path), std::string::npos);
  EXPECT_NE(cut.error().to_string().find("short read"), std::string::npos);
  EXPECT_TRUE(r->read_elements_at(0, dst, 100).ok()) << "the part still on disk reads fine";
}

TEST(LayoutPositional, NotOfferedWhenAThreadSafeCopyIsNotPossible) {
  TempTensor f;
  std::vector<float> out(10);
  auto* dst = reinterpret_cast<std::byte*>(out.data());

  auto observed = f.open();  // the observer must see bytes in stored order, once
  observed->set_raw_observer([](std::span<const std::byte>) {});
  EXPECT_FALSE(observed->positional());
  EXPECT_FALSE(observed->read_elements_at(0, dst, 10).ok());

  auto sequential = f.open(std::make_shared<SequentialOnly>(f.fd, f.path, kOffset + f.t.payload_size));
  EXPECT_FALSE(sequential->positional());
  EXPECT_FALSE(sequential->read_elements_at(0, dst, 10).ok());

  f.t.byte_swapped = true;  // big-endian npy: elements need swapping after the copy
  EXPECT_FALSE(f.open()->positional());
}

}  // namespace
}  // namespace msit
