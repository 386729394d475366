// A tiny protobuf wire writer and the DumpData header encoder (docs/formats/ge-dump.md §3/§4), by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dumpgen {

class PbWriter {
 public:
  void varint(uint64_t v);
  void key(uint32_t field, uint32_t wire_type) { varint((uint64_t{field} << 3) | wire_type); }
  void field_varint(uint32_t field, uint64_t v);               // omitted when 0 (proto3)
  void field_bytes(uint32_t field, const std::string& bytes);  // omitted when empty
  void field_message(uint32_t field, const std::string& msg);  // always written
  void packed_varints(uint32_t field, const std::vector<uint64_t>& v);
  const std::string& bytes() const { return buf_; }

 private:
  std::string buf_;
};

struct PbTensor {
  int data_type = 0;
  int format = 0;
  std::vector<uint64_t> shape;
  bool has_original_shape = true;
  std::vector<uint64_t> original_shape;
  uint64_t size = 0;
  bool packed_dims = true;  // false: repeated unpacked varints (parsers must accept both)
  bool has_shape_message = true;
};

struct PbHeader {
  std::string version = "2.0";
  uint64_t dump_time = 0;
  std::string op_name;
  std::vector<PbTensor> inputs, outputs;
  bool inputs_first = false;  // field order on the wire (any order is legal)
};

std::string encode_shape(const std::vector<uint64_t>& dims, bool packed);
std::string encode_op_input(const PbTensor& t);
std::string encode_op_output(const PbTensor& t);
std::string encode_dump_data(const PbHeader& h);
// A GE big-dump file (docs/formats/ge-dump.md §2): u64 little-endian header length, the encoded
// DumpData header, then the payloads (inputs, then outputs, in header order).
std::string ge_big_dump(const std::string& header, const std::string& payloads);

// Byte-exact check against the docs/formats/ge-dump.md §3 test vector; returns an error text or "".
std::string pb_self_check();

}  // namespace dumpgen
