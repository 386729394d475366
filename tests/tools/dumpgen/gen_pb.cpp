// Hand-encoded protobuf: the generator must not share libprotobuf code with the reader it tests.
#include "tests/tools/dumpgen/gen_pb.h"

namespace dumpgen {

void PbWriter::varint(uint64_t v) {
  while (v >= 0x80) {
    buf_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  buf_.push_back(static_cast<char>(v));
}

void PbWriter::field_varint(uint32_t field, uint64_t v) {
  if (v == 0) return;
  key(field, 0);
  varint(v);
}

void PbWriter::field_bytes(uint32_t field, const std::string& bytes) {
  if (bytes.empty()) return;
  field_message(field, bytes);
}

void PbWriter::field_message(uint32_t field, const std::string& msg) {
  key(field, 2);
  varint(msg.size());
  buf_ += msg;
}

void PbWriter::packed_varints(uint32_t field, const std::vector<uint64_t>& v) {
  if (v.empty()) return;
  PbWriter inner;
  for (uint64_t x : v) inner.varint(x);
  field_message(field, inner.bytes());
}

std::string encode_shape(const std::vector<uint64_t>& dims, bool packed) {
  PbWriter w;
  if (packed) {
    w.packed_varints(1, dims);
  } else {
    for (uint64_t d : dims) {  // unpacked keeps zero dims: repeated fields never omit values
      w.key(1, 0);
      w.varint(d);
    }
  }
  return w.bytes();
}

// OpInput: 1 data_type, 2 format, 3 shape, 5 size, 6 original_shape.
std::string encode_op_input(const PbTensor& t) {
  PbWriter w;
  w.field_varint(1, static_cast<uint64_t>(static_cast<int64_t>(t.data_type)));
  w.field_varint(2, static_cast<uint64_t>(static_cast<int64_t>(t.format)));
  if (t.has_shape_message) w.field_message(3, encode_shape(t.shape, t.packed_dims));
  w.field_varint(5, t.size);
  if (t.has_original_shape) w.field_message(6, encode_shape(t.original_shape, t.packed_dims));
  return w.bytes();
}

// OpOutput: 1 data_type, 2 format, 3 shape, 6 size, 7 original_shape.
std::string encode_op_output(const PbTensor& t) {
  PbWriter w;
  w.field_varint(1, static_cast<uint64_t>(static_cast<int64_t>(t.data_type)));
  w.field_varint(2, static_cast<uint64_t>(static_cast<int64_t>(t.format)));
  if (t.has_shape_message) w.field_message(3, encode_shape(t.shape, t.packed_dims));
  w.field_varint(6, t.size);
  if (t.has_original_shape) w.field_message(7, encode_shape(t.original_shape, t.packed_dims));
  return w.bytes();
}

// DumpData: 1 version, 2 dump_time, 3 output, 4 input, 6 op_name.
std::string encode_dump_data(const PbHeader& h) {
  PbWriter w;
  w.field_bytes(1, h.version);
  w.field_varint(2, h.dump_time);
  auto outputs = [&] {
    for (const auto& t : h.outputs) w.field_message(3, encode_op_output(t));
  };
  auto inputs = [&] {
    for (const auto& t : h.inputs) w.field_message(4, encode_op_input(t));
  };
  if (h.inputs_first) {
    inputs();
    outputs();
  } else {
    outputs();
    inputs();
  }
  w.field_bytes(6, h.op_name);
  return w.bytes();
}

std::string ge_big_dump(const std::string& header, const std::string& payloads) {
  std::string out(8, '\0');
  const uint64_t len = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(len >> (8 * i));
  return out + header + payloads;
}

std::string pb_self_check() {
  PbTensor t;
  t.data_type = 2;
  t.format = 2;
  t.shape = {2, 3};
  t.original_shape = {2, 3};
  t.size = 12;
  const unsigned char want[] = {0x08, 0x02, 0x10, 0x02, 0x1a, 0x04, 0x0a, 0x02, 0x02,
                                0x03, 0x28, 0x0c, 0x32, 0x04, 0x0a, 0x02, 0x02, 0x03};
  std::string got = encode_op_input(t);
  if (got != std::string(reinterpret_cast<const char*>(want), sizeof(want))) {
    return "OpInput test vector of docs/formats/ge-dump.md §3 does not match";
  }
  PbHeader h;
  std::string v = encode_dump_data(h);
  if (v != std::string("\x0a\x03"
                       "2.0",
                       5))
    return "DumpData version field does not match";
  PbWriter neg;
  neg.varint(static_cast<uint64_t>(int64_t{-1}));
  if (neg.bytes().size() != 10) return "negative varint must take 10 bytes";
  return "";
}

}  // namespace dumpgen
