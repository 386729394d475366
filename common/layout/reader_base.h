// Internal to common/layout: what every LogicalReader shares — bounded preads of the payload,
// the raw observer fed strictly in stored order, byte swapping, and draining a staging buffer.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "common/layout/layout_map.h"

namespace msit::layout {

// A window buffer that is not zero-filled: it is always written (pread) before it is read,
// and zeroing megabytes per tensor showed up as the top cost of opening a reader.
class RawBuffer {
 public:
  void resize(size_t n) {
    if (n != size_) data_ = std::make_unique_for_overwrite<std::byte[]>(n);
    size_ = n;
  }
  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<std::byte[]> data_;
  size_t size_ = 0;
};

class ReaderBase : public LogicalReader {
 public:
  ReaderBase(SourcePtr src, std::string path, uint64_t payload_offset, LayoutMap m)
      : src_(std::move(src)), path_(std::move(path)), base_(payload_offset), m_(std::move(m)) {}

 protected:
  // Reads [rel, rel+n) of the payload. When it continues the bytes observed so far it is
  // hashed on the spot, so a reader whose reads happen to be sequential needs no extra pass.
  Status read_payload(uint64_t rel, std::byte* dst, size_t n);
  // Feeds the observer everything not yet seen (reordering formats, surplus); runs once.
  Status finish_observer();
  void swap_elements(std::byte* p, size_t n_elements) const;

  SourcePtr src_;
  std::string path_;
  uint64_t base_;
  LayoutMap m_;
  uint64_t observed_ = 0;  // payload bytes already handed to the observer, in order
  bool finished_ = false;
};

// Readers that gather a window of logical elements into stage_ and hand it out.
class StagedReader : public ReaderBase {
 public:
  using ReaderBase::ReaderBase;
  Result<size_t> read(std::byte* out, size_t max_elements) final;

 protected:
  // Appends the next window of logical elements to stage_ (stage_len_ elements).
  virtual Status fill() = 0;

  RawBuffer stage_;
  size_t stage_len_ = 0;
  size_t stage_pos_ = 0;
  uint64_t produced_ = 0;
};

Result<std::unique_ptr<LogicalReader>> make_plain_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                         LayoutMap m);
Result<std::unique_ptr<LogicalReader>> make_panel_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                         LayoutMap m);
Result<std::unique_ptr<LogicalReader>> make_channel_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                           LayoutMap m);

// Copies one element of ES bytes; the fixed size lets the compiler emit a single move.
template <size_t ES>
inline void copy_elem(std::byte* dst, const std::byte* src) {
  std::memcpy(dst, src, ES);
}

}  // namespace msit::layout
