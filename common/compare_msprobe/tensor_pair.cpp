// A real-data pair (docs/formats/msprobe-compare.md §5.1): both files opened without following a
// link, their elements decoded to doubles chunk by chunk and fed to MsTensorMetrics.
#include "common/compare_msprobe/tensor_pair.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "common/base/unique_fd.h"
#include "common/compare_msprobe/tensor_metrics.h"
#include "common/dtype/decode.h"
#include "common/formats/dump_reader.h"
#include "common/formats/msprobe_names.h"
#include "common/formats/pth_reader.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"
#include "common/layout/logical_stream.h"

namespace msit {
namespace {

struct OpenTensor {
  UniqueFd fd;
  RawDumpFile file;
  TensorDesc desc;
  std::unique_ptr<LogicalReader> reader;
};

Result<OpenTensor> open_tensor(const std::string& dir, const std::string& data_name) {
  std::string path = dir + "/" + data_name;
  if (!is_safe_msprobe_data_name(data_name)) {
    return make_error(path, Stage::kOpen, "data_name is not a plain file name in the tensor directory: not opened");
  }
  OpenTensor t;
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(t.fd, open_regular_nofollow(path, &size));
  MSIT_ASSIGN_OR_RETURN(FileIdentity id, identity_of(t.fd.get(), path));
  FileSource src(t.fd.get(), path, size);
  const bool npy = data_name.size() > 4 && data_name.compare(data_name.size() - 4, 4, ".npy") == 0;
  if (npy) {
    MSIT_ASSIGN_OR_RETURN(t.file, read_npy_header(src, id));
  } else {
    MSIT_ASSIGN_OR_RETURN(t.file, read_pth_header(src, id));
  }
  if (t.file.tensors.size() != 1) return make_error(path, Stage::kHeader, "expected one tensor in the file");
  t.desc = t.file.tensors[0];
  MSIT_ASSIGN_OR_RETURN(LayoutPlan plan, plan_layout(t.desc, path));
  MSIT_ASSIGN_OR_RETURN(t.reader, LogicalReader::open(t.fd.get(), path, t.desc, plan));
  return t;
}

// Decodes up to n elements of `t` into doubles.
Result<size_t> read_doubles(OpenTensor& t, std::vector<std::byte>& raw, double* out, size_t n) {
  size_t width = dtype_info(t.desc.dtype).bits / 8;
  if (width == 0) return make_error(t.file.path, Stage::kPayload, "element type not readable as numbers");
  raw.resize(n * width);
  MSIT_ASSIGN_OR_RETURN(size_t got, t.reader->read(raw.data(), n));
  for (size_t i = 0; i < got; ++i) out[i] = decode_element(t.desc.dtype, raw.data() + i * width);
  return got;
}

}  // namespace

MsPairLevels ms_evaluate_tensor_pair(const std::string& npu_dir, const MsprobeItem& npu, const std::string& bench_dir,
                                     const MsprobeItem& bench, MsRow& row) {
  MsPairLevels out;
  auto nt = open_tensor(npu_dir, npu.data_name);
  auto bt = nt.ok() ? open_tensor(bench_dir, bench.data_name) : Result<OpenTensor>(nt.error());
  if (!nt.ok() || !bt.ok()) {
    row.metrics.fill(MsCell::of_text("unsupported"));
    row.metric_message = (nt.ok() ? bt.error() : nt.error()).to_string();
    return out;
  }
  MsTensorMetrics m(nt->desc.original_shape, bt->desc.original_shape, nt->desc.dtype, bt->desc.dtype);
  if (m.wants_values()) {
    constexpr size_t kChunk = size_t{1} << 16;
    std::vector<double> x(kChunk), y(kChunk);
    std::vector<std::byte> rx, ry;
    for (;;) {
      auto a = read_doubles(*nt, rx, x.data(), kChunk);
      auto c = a.ok() ? read_doubles(*bt, ry, y.data(), kChunk) : Result<size_t>(a.error());
      if (!a.ok() || !c.ok()) {
        row.metric_message = (a.ok() ? c.error() : a.error()).to_string();
        break;
      }
      size_t k = std::min(*a, *c);
      if (k == 0) break;
      m.add(x.data(), y.data(), k);
    }
  }
  row.metrics = m.finish(row.metric_message);
  if (row.metrics[0].kind == MsCell::Kind::kNumber) out.cosine = row.metrics[0].number;
  // RED = ||n - b|| / ||b||; EucDist is ||n - b||, the bench's Norm statistic ||b||.
  const MsCell& bn = bench.stats[3];
  if (row.metrics[1].kind == MsCell::Kind::kNumber && bn.kind == MsCell::Kind::kNumber && bn.number > 0) {
    out.red = row.metrics[1].number / bn.number;
  }
  return out;
}

}  // namespace msit
