// msProbe dump.json reader (docs/formats/msprobe.md §3-§6, §9): both generations' records, the
// streaming tokenizer at every chunk boundary, every prefix of a file being rewritten read as
// "not yet", and hostile files (escapes from the tensor directory, depth and size bombs).
#include <sys/file.h>
#include <sys/resource.h>

#include <fcntl.h>
#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/formats/json_stream.h"
#include "common/formats/msprobe_dump_json.h"

namespace msit {
namespace {

// 26.x PyTorch tensor dump: NaN/Infinity stats, nested lists, kwargs, null, scalars, integer
// tensor with null Mean/Norm, a backward entry and new-style parameters_grad.
const std::string kDump26 = R"({
 "task": "tensor",
 "level": "mix",
 "framework": "pytorch",
 "dump_data_dir": "./dump/step0/rank0/dump_tensor_data",
 "data": {
  "Functional.linear.0.forward": {
   "input_args": [
    {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3], "Max": NaN, "Min": -Infinity,
     "Mean": Infinity, "Norm": 1.5, "requires_grad": true, "data_name": "Functional.linear.0.forward.input.0.pt"},
    [{"type": "torch.Tensor", "dtype": "torch.int64", "shape": [4], "Max": 7, "Min": 0, "Mean": null,
      "Norm": null, "requires_grad": false}, null]
   ],
   "input_kwargs": {"dim": {"type": "int", "value": -1}, "scale": {"type": "float", "value": 0.08838834764831843},
                    "layout": {"type": "str", "value": "S\u00e9H"}, "group": null,
                    "sl": {"type": "slice", "value": [0, 4, null]}, "mf": {"type": "torch.memory_format", "format": "contiguous_format"}},
   "output": [{"type": "torch.Tensor", "dtype": "torch.bfloat16", "shape": [], "Max": 1.0, "Min": 1.0, "Mean": 1.0,
               "Norm": 1.0, "requires_grad": true, "data_name": "Functional.linear.0.forward.output.0.pt"}]
  },
  "Functional.linear.0.backward": {"input": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2, 3],
     "Max": 1, "Min": 0, "Mean": 0.5, "Norm": 2.0, "requires_grad": false}], "output": [null]},
  "Module.fc.Linear.parameters_grad.0": {"weight": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [3, 3],
     "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 2.0, "requires_grad": false,
     "data_name": "Module.fc.Linear.parameters_grad.0.weight.pt"}]},
  "Tensor.__bool__.1.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.bool", "shape": [],
     "Max": true, "Min": false, "Mean": null, "Norm": null, "requires_grad": false}], "input_kwargs": {},
     "output": [{"type": "bool", "value": false}]}
 }
})";

// 8.x MindSpore-free PyTorch statistics dump: no framework key, is_recompute, old parameters_grad.
const std::string kDump8 = R"({"task": "statistics", "level": "L0", "dump_data_dir": null, "data": {
 "Module.conv2.Conv2d.forward.0": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.int64", "shape": [1],
   "Max": 165558.0, "Min": 0.0, "Mean": 3.5, "Norm": 7.0, "requires_grad": false, "md5": "0a1b2c3d"}],
   "input_kwargs": {}, "output": [], "parameters": {"bias": {"type": "torch.Tensor", "dtype": "torch.float16",
   "shape": [2], "md5": "0x00000000deadbeef", "requires_grad": true}}, "is_recompute": false},
 "Module.conv2.Conv2d.parameters_grad": {"weight": [null]}}})";

struct Collected {
  std::vector<MsprobeEntry> entries;
  std::optional<MsprobeHeader> header;
  MsprobeJsonSink sink() {
    return {[this](const MsprobeHeader& h) {
              header = h;
              return ok_status();
            },
            [this](MsprobeEntry&& e) {
              entries.push_back(std::move(e));
              return ok_status();
            }};
  }
};

Result<MsprobeJsonInfo> read_text(const std::string& text, Collected& c) {
  MemorySource src(std::as_bytes(std::span<const char>(text.data(), text.size())), "/d/step0/rank0/dump.json");
  return read_msprobe_json(src, c.sink());
}

TEST(MsprobeJson, Generation26RecordsAndLeaves) {
  Collected c;
  auto r = read_text(kDump26, c);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(c.header.has_value());
  EXPECT_EQ(c.header->task, MsprobeTask::kTensor);
  EXPECT_EQ(c.header->level, MsprobeLevel::kMix);
  EXPECT_EQ(c.header->framework, MsprobeFramework::kPytorch);
  ASSERT_EQ(c.entries.size(), 4u);
  EXPECT_EQ(r->entries, 4u);
  for (size_t i = 0; i < c.entries.size(); ++i) EXPECT_EQ(c.entries[i].order, i);

  const MsprobeEntry& fwd = c.entries[0];
  ASSERT_TRUE(fwd.parsed.has_value());
  EXPECT_EQ(fwd.parsed->kind, MsprobeEntryKind::kApi);
  EXPECT_EQ(fwd.parsed->direction, MsprobeDirection::kForward);
  ASSERT_EQ(fwd.leaves.size(), 10u);  // 3 input leaves, 6 kwargs, 1 output
  const MsprobeTensor& in0 = fwd.leaves[0].tensor;
  EXPECT_EQ(fwd.leaves[0].kind, MsprobeLeafKind::kTensor);
  EXPECT_EQ(fwd.leaves[0].path, std::vector<std::string>{"0"});
  EXPECT_EQ(in0.dtype, DType::kFloat32);
  EXPECT_EQ(in0.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(in0.count, 6u);
  EXPECT_TRUE(std::isnan(in0.max.number));
  EXPECT_EQ(in0.min.number, -INFINITY);
  EXPECT_EQ(in0.mean.number, INFINITY);
  EXPECT_EQ(in0.requires_grad, true);
  EXPECT_EQ(in0.data_name, "Functional.linear.0.forward.input.0.pt");
  // Nested list in arg 1: paths 1.0 (int64, 26.x: integer Max, null Mean) and 1.1 (None).
  EXPECT_EQ(fwd.leaves[1].path, (std::vector<std::string>{"1", "0"}));
  EXPECT_EQ(fwd.leaves[1].tensor.dtype, DType::kInt64);
  EXPECT_TRUE(fwd.leaves[1].tensor.max.is_integer);
  EXPECT_EQ(fwd.leaves[1].tensor.mean.kind, MsprobeStat::Kind::kNull);
  EXPECT_EQ(fwd.leaves[2].kind, MsprobeLeafKind::kNull);
  EXPECT_EQ(fwd.leaves[3].category, MsprobeCategory::kKwargs);
  EXPECT_EQ(fwd.leaves[3].path, std::vector<std::string>{"dim"});
  EXPECT_EQ(fwd.leaves[3].scalar.type, "int");
  EXPECT_EQ(fwd.leaves[3].scalar.number, -1.0);
  EXPECT_EQ(fwd.leaves[4].scalar.value_text, "0.08838834764831843");
  EXPECT_EQ(fwd.leaves[5].scalar.value_text, "S\xc3\xa9H");  // \u00e9 as UTF-8
  EXPECT_EQ(fwd.leaves[6].kind, MsprobeLeafKind::kNull);
  EXPECT_EQ(fwd.leaves[7].scalar.value_text, "[0, 4, null]");
  EXPECT_EQ(fwd.leaves[8].scalar.type, "torch.memory_format");
  EXPECT_EQ(fwd.leaves[9].category, MsprobeCategory::kOutput);
  EXPECT_TRUE(fwd.leaves[9].tensor.shape.empty());
  EXPECT_EQ(fwd.leaves[9].tensor.count, 1u);
  EXPECT_EQ(fwd.leaves[9].tensor.dtype, DType::kBFloat16);

  const MsprobeEntry& bwd = c.entries[1];
  EXPECT_EQ(bwd.parsed->direction, MsprobeDirection::kBackward);
  ASSERT_EQ(bwd.leaves.size(), 2u);
  EXPECT_EQ(bwd.leaves[0].category, MsprobeCategory::kInput);
  EXPECT_EQ(bwd.leaves[1].category, MsprobeCategory::kOutput);
  EXPECT_EQ(bwd.leaves[1].kind, MsprobeLeafKind::kNull);

  const MsprobeEntry& pg = c.entries[2];
  EXPECT_EQ(pg.parsed->kind, MsprobeEntryKind::kParametersGrad);
  EXPECT_EQ(pg.parsed->call, 0u);
  ASSERT_EQ(pg.leaves.size(), 1u);
  EXPECT_EQ(pg.leaves[0].category, MsprobeCategory::kParameterGrad);
  EXPECT_EQ(pg.leaves[0].path, std::vector<std::string>{"weight"});  // the one-element list unwrapped

  const MsprobeEntry& b = c.entries[3];
  EXPECT_EQ(b.leaves[0].tensor.max.kind, MsprobeStat::Kind::kBool);
  EXPECT_TRUE(b.leaves[0].tensor.max.flag);
  EXPECT_EQ(b.leaves[1].scalar.type, "bool");
}

TEST(MsprobeJson, Generation8WithoutFrameworkKey) {
  Collected c;
  auto r = read_text(kDump8, c);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(c.header->framework, MsprobeFramework::kAbsent);
  EXPECT_EQ(c.header->task, MsprobeTask::kStatistics);
  EXPECT_FALSE(c.header->dump_data_dir.has_value());
  ASSERT_EQ(c.entries.size(), 2u);
  const MsprobeEntry& m = c.entries[0];
  EXPECT_EQ(m.parsed->kind, MsprobeEntryKind::kModule);
  EXPECT_EQ(m.parsed->op, "conv2.Conv2d");
  EXPECT_EQ(m.is_recompute, false);
  ASSERT_EQ(m.leaves.size(), 2u);
  EXPECT_EQ(m.leaves[0].tensor.checksum, MsprobeChecksum::kCrc32);
  EXPECT_EQ(m.leaves[0].tensor.checksum_text, "0a1b2c3d");
  EXPECT_FALSE(m.leaves[0].tensor.max.is_integer);  // 8.x: integer tensors' stats as floats
  EXPECT_EQ(m.leaves[1].category, MsprobeCategory::kParameters);
  EXPECT_EQ(m.leaves[1].tensor.checksum, MsprobeChecksum::kXor);
  EXPECT_EQ(m.leaves[1].tensor.max.kind, MsprobeStat::Kind::kAbsent);
  EXPECT_EQ(c.entries[1].parsed->kind, MsprobeEntryKind::kParametersGrad);
  EXPECT_FALSE(c.entries[1].parsed->call.has_value());
  EXPECT_EQ(c.entries[1].leaves.at(0).kind, MsprobeLeafKind::kNull);
}

// A file msProbe is rewriting is a prefix of a valid one: every prefix is "not yet", never a
// parse error, and the entries passed before the cut are the first ones of the whole file.
TEST(MsprobeJson, EveryPrefixIsIncompleteNeverCorrupt) {
  for (const std::string* doc : {&kDump26, &kDump8}) {
    Collected whole;
    ASSERT_TRUE(read_text(*doc, whole).ok());
    for (size_t n = 0; n < doc->size(); ++n) {
      Collected c;
      auto r = read_text(doc->substr(0, n), c);
      ASSERT_FALSE(r.ok()) << "prefix " << n;
      ASSERT_EQ(r.error().stage, Stage::kIncomplete) << "prefix " << n << ": " << r.error().to_string();
      ASSERT_LE(c.entries.size(), whole.entries.size());
      for (size_t i = 0; i < c.entries.size(); ++i) EXPECT_EQ(c.entries[i].name, whole.entries[i].name);
    }
  }
}

TEST(MsprobeJson, StructureTaskAndNullData) {
  Collected c;
  auto r = read_text(R"({"task": "structure", "level": "L1", "framework": "mindspore", "data": {}})", c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(c.header->framework, MsprobeFramework::kMindspore);
  EXPECT_EQ(r->entries, 0u);
  Collected d;
  ASSERT_TRUE(read_text(R"({"data": null, "task": "statistics"})", d).ok());
  EXPECT_EQ(d.header->task, MsprobeTask::kAbsent);  // the header is sent when "data" starts
}

TEST(MsprobeJson, HostileDataNamesAreRefused) {
  for (std::string name : {"../../etc/passwd", "/etc/passwd", "a/b.pt", "..", ""}) {
    Collected c;
    const std::string doc = R"({"data": {"Functional.relu.0.forward": {"output": [{"type": "torch.Tensor",
      "dtype": "torch.float32", "shape": [1], "data_name": ")" +
                            name + R"("}]}}})";
    auto r = read_text(doc, c);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.error().stage, Stage::kParse);
    EXPECT_NE(r.error().message.find("tensor directory"), std::string::npos) << r.error().message;
  }
}

TEST(MsprobeJson, HostileShapesAndSizes) {
  Collected c;
  auto neg = read_text(R"({"data": {"A.b.0.forward": {"output": [{"type": "t", "dtype": "d", "shape": [-1]}]}}})", c);
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.error().message.find("non-negative"), std::string::npos);
  Collected big;
  auto ovf = read_text(R"({"data": {"A.b.0.forward": {"output": [{"type": "t", "dtype": "d",
    "shape": [4294967296, 4294967296, 4294967296]}]}}})",
                       big);
  ASSERT_TRUE(ovf.ok());
  EXPECT_FALSE(big.entries.at(0).leaves.at(0).tensor.count.has_value());
  // A nesting bomb is an error, not a stack overflow.
  Collected deep;
  auto d = read_text(R"({"data": {"A.b.0.forward": {"output": )" + std::string(100000, '['), deep);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().stage, Stage::kParse);
  // Text after the object, and a repeated entry (delivered twice, in order).
  Collected trail;
  EXPECT_EQ(read_text(R"({"data": {}} x)", trail).error().stage, Stage::kParse);
  Collected rep;
  auto r = read_text(R"({"data": {"A.b.0.forward": {}, "A.b.0.forward": {"output": [null]}}})", rep);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(rep.entries.size(), 2u);
  EXPECT_EQ(rep.entries[1].order, 1u);
  EXPECT_EQ(rep.entries[1].leaves.size(), 1u);
}

// The tokenizer gives the same tokens whatever the chunk size, escapes and literals included.
TEST(JsonStream, SameTokensAtEveryChunkSize) {
  const std::string doc =
      R"( {"a\"b": [1, -0.5e-3, 1E+400, -1e-400, NaN, -Infinity, true, false, null, "\ud83d\ude00\n"], "":{}} )";
  auto tokens = [&](size_t chunk) {
    MemorySource src(std::as_bytes(std::span<const char>(doc.data(), doc.size())), "t.json");
    JsonLimits l;
    l.chunk_bytes = chunk;
    JsonStream js(src, l);
    std::vector<std::string> out;
    for (;;) {
      auto t = js.next();
      EXPECT_TRUE(t.ok()) << t.error().to_string();
      if (!t.ok() || *t == JsonToken::kEnd) break;
      out.push_back(std::to_string(static_cast<int>(*t)) + ":" + std::string(js.text()) + ":" +
                    std::to_string(js.number()));
    }
    return out;
  };
  const auto ref = tokens(1 << 16);
  ASSERT_EQ(ref.size(), 18u);
  EXPECT_EQ(ref[1], "4:a\"b:0.000000");
  EXPECT_NE(ref[5].find(":inf"), std::string::npos);  // 1E+400 overflows to +inf
  EXPECT_EQ(ref[12], "5:\xf0\x9f\x98\x80\n:0.000000");
  for (size_t chunk = 16; chunk < 64; ++chunk) EXPECT_EQ(tokens(chunk), ref) << chunk;
}

TEST(JsonStream, LongStringsAreBounded) {
  const std::string doc = "[\"" + std::string(5000, 'x') + "\"]";
  MemorySource src(std::as_bytes(std::span<const char>(doc.data(), doc.size())), "t.json");
  JsonLimits l;
  l.max_string = 4096;
  l.chunk_bytes = 64;
  JsonStream js(src, l);
  ASSERT_TRUE(js.next().ok());
  auto t = js.next();
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("longer than"), std::string::npos);
}

// A dump.json of many entries, produced on the fly: read whole in one pass, memory bounded by
// the entry (the process's peak RSS grows by less than the file's size).
class SyntheticDump final : public ByteSource {
 public:
  explicit SyntheticDump(uint64_t entries) : entries_(entries) {
    head_ = R"({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {)";
    size_ = head_.size() + entries_ * kEntryBytes + 2;
  }
  Status read_at(uint64_t off, std::span<std::byte> out, Stage) override {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::byte>(at(off + i));
    return ok_status();
  }
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  static constexpr uint64_t kEntryBytes = 200;
  char at(uint64_t off) const {
    if (off < head_.size()) return head_[off];
    off -= head_.size();
    const uint64_t e = off / kEntryBytes;
    if (e >= entries_) return "}}"[off - entries_ * kEntryBytes];
    if (e != cached_) {  // one entry's text, rendered once and read byte by byte
      char body[kEntryBytes + 1];
      const int n = std::snprintf(
          body, sizeof body,
          R"(%s"Torch.add.%llu.forward": {"output": [{"type": "torch.Tensor", "dtype": "torch.float16", "shape": [8], "Max": 1.5, "Min": NaN}]})",
          e ? "," : "", static_cast<unsigned long long>(e));
      text_.assign(body, static_cast<size_t>(n));
      text_.resize(kEntryBytes, ' ');
      cached_ = e;
    }
    return text_[off % kEntryBytes];
  }
  mutable uint64_t cached_ = UINT64_MAX;
  mutable std::string text_;
  uint64_t entries_, size_;
  std::string head_, path_ = "/big/dump.json";
};

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// ASan's quarantine keeps freed blocks resident: the RSS bound holds only without it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRssMeaningful = false;
constexpr uint64_t kSyntheticEntries = 10000;
#else
constexpr bool kRssMeaningful = true;
constexpr uint64_t kSyntheticEntries = 100000;  // 20 MB of text
#endif

TEST(MsprobeJson, LargeFileInBoundedMemory) {
  SyntheticDump src(kSyntheticEntries);
  const long before = peak_rss_kb();
  uint64_t seen = 0;
  MsprobeJsonSink sink{
      nullptr, [&](MsprobeEntry&& e) {
        if (e.order != seen || e.leaves.size() != 1)
          return Status(make_error("", Stage::kParse,
                                   "entry " + e.name + " order " + std::to_string(e.order) + " seen " +
                                       std::to_string(seen) + " leaves " + std::to_string(e.leaves.size())));
        ++seen;
        return ok_status();
      }};
  auto r = read_msprobe_json(src, sink);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(seen, kSyntheticEntries);
  EXPECT_EQ(r->bytes, src.size());
  if (kRssMeaningful) { EXPECT_LT(peak_rss_kb() - before, 16 * 1024) << "peak RSS grew with the file"; }
}

TEST(MsprobeJson, FileBeingWrittenUnderMsprobesLockIsNotYet) {
  char tmpl[] = "/tmp/msit-msprobe-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  { std::ofstream(dir + "/dump.json") << kDump8; }
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  Collected c;
  auto ok = read_msprobe_json_at(dfd, "dump.json", dir + "/dump.json", c.sink());
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  const int wfd = ::open((dir + "/dump.json").c_str(), O_RDWR);
  ASSERT_EQ(::flock(wfd, LOCK_EX), 0);
  Collected d;
  auto held = read_msprobe_json_at(dfd, "dump.json", dir + "/dump.json", d.sink());
  ASSERT_FALSE(held.ok());
  EXPECT_EQ(held.error().stage, Stage::kIncomplete);
  ::close(wfd);
  ASSERT_EQ(::symlink("dump.json", (dir + "/link.json").c_str()), 0);
  EXPECT_FALSE(read_msprobe_json_at(dfd, "link.json", dir + "/link.json", d.sink()).ok());  // never followed
  ::close(dfd);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace msit
