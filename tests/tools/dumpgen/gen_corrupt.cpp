// One generator per corruption kind: truncation, bad lengths, garbage, overflow, bad npy.
#include "tests/tools/dumpgen/gen_corrupt.h"

#include "tests/tools/dumpgen/gen_layout.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pb.h"

namespace dumpgen {

namespace {

std::string u64le(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

GeOp plain_op(Rng& rng, uint64_t seq, uint64_t elements) {
  GeOp op;
  op.type = "Add";
  op.name = "Add_" + std::to_string(seq);
  op.task_id = 7;
  op.stream_id = 2;
  op.timestamp = ts_us16(seq * 1000);
  TensorPlan p;
  p.dtype = find_dtype("float16");
  p.original_shape = {elements};
  GenTensor t = make_tensor(rng, p);
  t.role = "input";
  op.inputs.push_back(t);
  t.role = "output";
  op.outputs.push_back(std::move(t));
  return op;
}

// A header whose single tensor descriptor is hostile.
std::string ge_with_tensor(const PbTensor& t, const std::string& payload) {
  PbHeader h;
  h.op_name = "Bad";
  h.outputs.push_back(t);
  std::string header = encode_dump_data(h);
  return u64le(header.size()) + header + payload;
}

std::string fx_name(uint64_t seq) {
  return "add_" + std::to_string(seq) + "-aten.add.Tensor.OUTPUT.0." + ts20(seq * 1000) + ".npy";
}

}  // namespace

CorruptFile make_corrupt(Rng& rng, int k, const PlanLimits&, uint64_t seq) {
  CorruptFile c;
  GeOp op = plain_op(rng, seq, 300);
  c.name = ge_file_name(op);
  std::string good = ge_file_bytes(op);
  std::string f4 = npy_header("<f4", {10});
  switch (k % kCorruptKinds) {
    case 0:
      c.what = "ge_truncated";
      c.bytes = good.substr(0, good.size() - 301);
      break;
    case 1:
      c.what = "npy_bad_magic";
      c.bytes = "\x93NUMPX" + f4.substr(6) + std::string(40, 'a');
      break;
    case 2:
      c.what = "ge_header_past_eof";
      c.bytes = u64le(good.size()) + good.substr(8);
      break;
    case 3:
      c.what = "npy_negative_shape";
      c.bytes = npy_header_raw("<f4", "(-1, 3)") + std::string(12, '\0');
      break;
    case 4:
      c.what = "ge_garbage_proto";
      c.bytes = u64le(32) + std::string(32, '\xff') + std::string(64, '\x01');
      break;
    case 5:
      c.what = "ge_zero_length";
      c.bytes.clear();
      break;
    case 6: {
      PbTensor t;
      t.data_type = 2;
      t.format = 2;
      t.shape = {4};
      t.original_shape = {4};
      t.size = 0xfffffffffffffff0ull;
      c.what = "ge_size_overflow";
      c.bytes = ge_with_tensor(t, std::string(8, '\0'));
      break;
    }
    case 7:
      c.what = "npy_bad_header";
      c.bytes = f4.substr(0, 30) + std::string(f4.size() - 30, 'x') + std::string(40, '\0');
      break;
    case 8:
      c.what = "npy_zero_length";
      c.bytes.clear();
      break;
    case 9:
      c.what = "ge_tiny";
      c.bytes = std::string("\x05\x00\x00\x00\x00", 5);
      break;
    case 10:
      c.what = "npy_short_data";
      c.bytes = npy_header("<f4", {1000}) + std::string(40, '\0');
      break;
    default: {
      PbTensor t;
      t.data_type = 2;
      t.format = 2;
      t.shape = {1ull << 40, 1ull << 40};
      t.original_shape = t.shape;
      t.size = 8;
      c.what = "ge_dims_overflow";
      c.bytes = ge_with_tensor(t, std::string(8, '\0'));
      break;
    }
  }
  c.ge = c.what.rfind("ge_", 0) == 0;
  if (!c.ge) c.name = fx_name(seq);
  return c;
}

}  // namespace dumpgen
