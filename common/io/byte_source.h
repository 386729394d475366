// Random access to the bytes of a dump file, wherever they live: a plain file (pread) or a
// lossless archive (decompressed on demand). Readers take a source, never a raw fd, so that
// archived dumps are read with exactly the code that reads raw ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "common/base/result.h"

namespace msit {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads exactly out.size() bytes at off, or fails naming path() and stage.
  virtual Status read_at(uint64_t off, std::span<std::byte> out, Stage stage) = 0;
  // Size of the (original) file these bytes belong to.
  virtual uint64_t size() const = 0;
  virtual const std::string& path() const = 0;
  // Hint that [off, off+len) will be read sequentially (posix_fadvise for files).
  virtual void will_read_sequentially(uint64_t /*off*/, uint64_t /*len*/) {}
  // True when read_at may run on several threads at once (pread on a file, memory); a source
  // that decodes into shared state (archives) says false and is read by one thread.
  virtual bool concurrent_reads() const { return false; }
};

using SourcePtr = std::shared_ptr<ByteSource>;

// A file descriptor owned by someone else (it must outlive the source).
class FileSource final : public ByteSource {
 public:
  FileSource(int fd, std::string path, uint64_t size) : fd_(fd), path_(std::move(path)), size_(size) {}
  Status read_at(uint64_t off, std::span<std::byte> out, Stage stage) override;
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }
  void will_read_sequentially(uint64_t off, uint64_t len) override;
  bool concurrent_reads() const override { return true; }  // pread does not move a shared offset

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
};

// Bytes already in memory (fuzzers, tests, prefixes of a file).
class MemorySource final : public ByteSource {
 public:
  MemorySource(std::span<const std::byte> bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}
  Status read_at(uint64_t off, std::span<std::byte> out, Stage stage) override;
  uint64_t size() const override { return bytes_.size(); }
  const std::string& path() const override { return path_; }
  bool concurrent_reads() const override { return true; }

 private:
  std::span<const std::byte> bytes_;
  std::string path_;
};

}  // namespace msit
