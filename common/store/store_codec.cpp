#include "common/store/store_codec.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>
#include <utility>

namespace msit::store {
namespace {

static_assert(std::endian::native == std::endian::little, "store blobs are little-endian; add byte swaps");

void bind_text(sqlite3_stmt* s, int col, std::string_view v) {
  sqlite3_bind_text(s, col, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}
void bind_opt_text(sqlite3_stmt* s, int col, const std::string& v) {
  if (v.empty()) sqlite3_bind_null(s, col);
  else bind_text(s, col, v);
}
void bind_u64(sqlite3_stmt* s, int col, uint64_t v) { sqlite3_bind_int64(s, col, static_cast<int64_t>(v)); }
// Like the JSON form: a non-finite statistic is null.
void bind_finite(sqlite3_stmt* s, int col, const std::optional<double>& v) {
  if (v && std::isfinite(*v)) sqlite3_bind_double(s, col, *v);
  else sqlite3_bind_null(s, col);
}

// Column -1 (not selected) reads as NULL.
bool is_null(sqlite3_stmt* s, int col) { return col < 0 || sqlite3_column_type(s, col) == SQLITE_NULL; }
std::string text_of(sqlite3_stmt* s, int col) {
  const auto* p = col < 0 ? nullptr : reinterpret_cast<const char*>(sqlite3_column_text(s, col));
  return p != nullptr ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s, col))) : std::string();
}
std::optional<double> opt_real(sqlite3_stmt* s, int col) {
  if (is_null(s, col)) return std::nullopt;
  return sqlite3_column_double(s, col);
}
double real_of(sqlite3_stmt* s, int col) { return col < 0 ? 0.0 : sqlite3_column_double(s, col); }
int64_t int_of(sqlite3_stmt* s, int col) { return col < 0 ? 0 : sqlite3_column_int64(s, col); }
uint64_t u64_of(sqlite3_stmt* s, int col) { return static_cast<uint64_t>(int_of(s, col)); }

template <class T>
std::vector<double> doubles_of_blob(const void* p, size_t bytes) {
  std::vector<double> out(bytes / sizeof(T));
  for (size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, static_cast<const char*>(p) + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(v);
  }
  return out;
}

Result<uint64_t> parse_u64(const std::string& text, const std::string& where) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return make_error(where, Stage::kStore, "bad unsigned extreme \"" + text.substr(0, 30) + "\"");
  }
  return v;
}

// Column order of kSelectFile (summary_store.cpp): the file's columns, then its tensor's.
// clang-format off
enum FileCol : int {
  kKind, kSizeBytes, kMtime, kOpType, kOpName, kTaskId, kStreamId, kOpTimestamp, kDumpOpName, kCreatedBy, kPath,
  kBlockCount,
};
// clang-format on

// An extreme goes to exactly one of its three columns: exact int64, exact uint64 as text (SQLite
// integers are signed), or a double for float tensors.
struct ExtremeCells {
  std::optional<double> real;
  std::optional<int64_t> i64;
  std::optional<std::string> u64_text;
};
ExtremeCells extreme_cells(const std::optional<double>& real, const std::optional<int64_t>& i64,
                           const std::optional<uint64_t>& u64) {
  ExtremeCells c;
  if (i64) c.i64 = *i64;
  else if (u64) c.u64_text = std::to_string(*u64);
  else c.real = real;
  return c;
}

Status read_extreme(sqlite3_stmt* s, int real_col, int int_col, int uint_col, bool is_min, TensorStats& st,
                    const std::string& where) {
  std::optional<double>& d = is_min ? st.min : st.max;
  if (!is_null(s, int_col)) {
    int64_t v = int_of(s, int_col);
    (is_min ? st.min_i64 : st.max_i64) = v;
    d = static_cast<double>(v);
  } else if (!is_null(s, uint_col)) {
    MSIT_ASSIGN_OR_RETURN(uint64_t v, parse_u64(text_of(s, uint_col), where));
    (is_min ? st.min_u64 : st.max_u64) = v;
    d = static_cast<double>(v);
  } else {
    d = opt_real(s, real_col);
  }
  return ok_status();
}

Result<std::optional<Sketch>> read_sketch(sqlite3_stmt* s, const TensorColumns& c, uint64_t count,
                                          const std::string& where) {
  if (is_null(s, c.sketch)) return std::optional<Sketch>();
  Sketch sk;
  const int64_t width = int_of(s, c.sketch_width);
  sk.seed = u64_of(s, c.sketch_seed);
  const void* blob = sqlite3_column_blob(s, c.sketch);
  const auto bytes = static_cast<size_t>(sqlite3_column_bytes(s, c.sketch));
  if (width <= 0 || width > (1 << 20) || (width & (width - 1)) != 0) {
    return make_error(where, Stage::kStore, "sketch width " + std::to_string(width) + " is not a power of two");
  }
  sk.width = static_cast<uint32_t>(width);
  if (bytes == sk.width * sizeof(float)) sk.values = doubles_of_blob<float>(blob, bytes);
  else if (bytes == sk.width * sizeof(double)) sk.values = doubles_of_blob<double>(blob, bytes);
  else
    return make_error(where, Stage::kStore,
                      "sketch blob of " + std::to_string(bytes) + " bytes for width " + std::to_string(width));
  (void)count;
  return std::optional<Sketch>(std::move(sk));
}

}  // namespace

std::string dims_text(const std::vector<uint64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

Result<std::vector<uint64_t>> parse_dims(std::string_view text, const std::string& where) {
  auto bad = [&] { return make_error(where, Stage::kStore, "bad shape \"" + std::string(text.substr(0, 40)) + "\""); };
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return bad();
  std::vector<uint64_t> dims;
  std::string_view body = text.substr(1, text.size() - 2);
  while (!body.empty()) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    if (ec != std::errc() || dims.size() >= 64) return bad();
    dims.push_back(v);
    body.remove_prefix(static_cast<size_t>(end - body.data()));
    if (!body.empty()) {
      if (body.front() != ',' || body.size() == 1) return bad();
      body.remove_prefix(1);
    }
  }
  return dims;
}

void bind_file(sqlite3_stmt* s, std::string_view path, const StoreEntry& e, int64_t now_ns) {
  const FileSummary& f = *e.summary;
  bind_text(s, 1, path);
  bind_text(s, 2, f.source_kind);
  bind_u64(s, 3, f.source_size);
  sqlite3_bind_int64(s, 4, f.source_mtime_ns);
  bind_u64(s, 5, static_cast<uint64_t>(e.identity.dev));
  bind_u64(s, 6, static_cast<uint64_t>(e.identity.ino));
  for (int c = 7; c <= 12; ++c) sqlite3_bind_null(s, c);
  if (f.op) {
    bind_text(s, 7, f.op->type);
    bind_text(s, 8, f.op->name);
    bind_text(s, 9, f.op->task_id);
    bind_text(s, 10, f.op->stream_id);
    bind_text(s, 11, f.op->timestamp);
    bind_opt_text(s, 12, f.op->dump_op_name);
  }
  bind_text(s, 13, f.created_by);
  sqlite3_bind_int64(s, 14, now_ns);
  sqlite3_bind_int64(s, 15, static_cast<int64_t>(f.extra_blocks.size()));
}

void bind_tensor(sqlite3_stmt* s, int64_t file_id, int ord, const TensorSummary& t, SketchPrecision precision) {
  const TensorStats& st = t.stats;
  int c = 1;
  sqlite3_bind_int64(s, c++, file_id);
  sqlite3_bind_int(s, c++, ord);
  bind_text(s, c++, t.role);
  sqlite3_bind_int64(s, c++, t.index);
  if (t.sub_index) sqlite3_bind_int64(s, c++, *t.sub_index);
  else sqlite3_bind_null(s, c++);
  bind_text(s, c++, t.dtype);
  bind_text(s, c++, dims_text(t.shape));
  bind_text(s, c++, t.format);
  bind_text(s, c++, dims_text(t.original_shape));
  bind_u64(s, c++, t.count);
  sqlite3_bind_int(s, c++, t.padding_included ? 1 : 0);
  sqlite3_bind_int(s, c++, t.stats_available ? 1 : 0);
  sqlite3_bind_int(s, c++, t.l2norm_available ? 1 : 0);
  bind_opt_text(s, c++, t.note);
  const ExtremeCells lo = extreme_cells(st.min, st.min_i64, st.min_u64);
  const ExtremeCells hi = extreme_cells(st.max, st.max_i64, st.max_u64);
  bind_finite(s, c++, lo.real);
  bind_finite(s, c++, hi.real);
  for (const ExtremeCells* e : {&lo, &hi}) {
    if (e->i64) sqlite3_bind_int64(s, c++, *e->i64);
    else sqlite3_bind_null(s, c++);
  }
  for (const ExtremeCells* e : {&lo, &hi}) {
    if (e->u64_text) bind_text(s, c++, *e->u64_text);
    else sqlite3_bind_null(s, c++);
  }
  bind_finite(s, c++, st.mean);
  bind_finite(s, c++, st.std);
  bind_finite(s, c++, st.abs_max);
  sqlite3_bind_double(s, c++, std::isfinite(st.l2norm) ? st.l2norm : 0.0);
  sqlite3_bind_double(s, c++, std::isfinite(st.sum) ? st.sum : 0.0);
  bind_u64(s, c++, st.finite_count);
  bind_u64(s, c++, st.nan_count);
  bind_u64(s, c++, st.posinf_count);
  bind_u64(s, c++, st.neginf_count);
  bind_u64(s, c++, st.zero_count);
  if (st.values && st.values->empty()) {
    sqlite3_bind_zeroblob(s, c++, 0);  // an empty tensor has values, none of them: not NULL
  } else if (st.values) {
    sqlite3_bind_blob(s, c++, st.values->data(), static_cast<int>(st.values->size() * sizeof(double)),
                      SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(s, c++);
  }
  if (st.sketch) {
    sqlite3_bind_int64(s, c++, st.sketch->width);
    bind_u64(s, c++, st.sketch->seed);
    const std::vector<double>& v = st.sketch->values;
    if (precision == SketchPrecision::kFloat32) {
      std::vector<float> f(v.begin(), v.end());
      sqlite3_bind_blob(s, c++, f.data(), static_cast<int>(f.size() * sizeof(float)), SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_blob(s, c++, v.data(), static_cast<int>(v.size() * sizeof(double)), SQLITE_TRANSIENT);
    }
  } else {
    for (int k = 0; k < 3; ++k) sqlite3_bind_null(s, c++);
  }
  bind_text(s, c++, t.xxh3_64);
}

void bind_block(sqlite3_stmt* s, int64_t file_id, int ord, const ExtraBlock& b) {
  sqlite3_bind_int64(s, 1, file_id);
  sqlite3_bind_int(s, 2, ord);
  bind_text(s, 3, b.role);
  sqlite3_bind_int64(s, 4, b.index);
  bind_u64(s, 5, b.size_bytes);
  bind_text(s, 6, b.xxh3_64);
}

int64_t read_file_row(sqlite3_stmt* s, FileSummary& out) {
  out.source_kind = text_of(s, kKind);
  out.source_size = u64_of(s, kSizeBytes);
  out.source_mtime_ns = sqlite3_column_int64(s, kMtime);
  if (!is_null(s, kOpType)) {
    OpInfo op;
    op.type = text_of(s, kOpType);
    op.name = text_of(s, kOpName);
    op.task_id = text_of(s, kTaskId);
    op.stream_id = text_of(s, kStreamId);
    op.timestamp = text_of(s, kOpTimestamp);
    op.dump_op_name = text_of(s, kDumpOpName);
    out.op = std::move(op);
  }
  out.created_by = text_of(s, kCreatedBy);
  return sqlite3_column_int64(s, kBlockCount);
}

TensorColumns tensor_columns_of(sqlite3_stmt* s) {
  static constexpr std::pair<std::string_view, int TensorColumns::*> kNames[] = {
      {"file_id", &TensorColumns::file_id},
      {"role", &TensorColumns::role},
      {"idx", &TensorColumns::idx},
      {"sub_index", &TensorColumns::sub_index},
      {"dtype", &TensorColumns::dtype},
      {"shape", &TensorColumns::shape},
      {"format", &TensorColumns::format},
      {"original_shape", &TensorColumns::original_shape},
      {"count", &TensorColumns::count},
      {"padding_included", &TensorColumns::padding_included},
      {"stats_available", &TensorColumns::stats_available},
      {"l2norm_available", &TensorColumns::l2norm_available},
      {"note", &TensorColumns::note},
      {"min", &TensorColumns::min},
      {"max", &TensorColumns::max},
      {"min_int", &TensorColumns::min_int},
      {"max_int", &TensorColumns::max_int},
      {"min_uint", &TensorColumns::min_uint},
      {"max_uint", &TensorColumns::max_uint},
      {"mean", &TensorColumns::mean},
      {"std", &TensorColumns::std},
      {"abs_max", &TensorColumns::abs_max},
      {"l2norm", &TensorColumns::l2norm},
      {"sum", &TensorColumns::sum},
      {"finite_count", &TensorColumns::finite_count},
      {"nan_count", &TensorColumns::nan_count},
      {"posinf_count", &TensorColumns::posinf_count},
      {"neginf_count", &TensorColumns::neginf_count},
      {"zero_count", &TensorColumns::zero_count},
      {"elements", &TensorColumns::elements},
      {"sketch_width", &TensorColumns::sketch_width},
      {"sketch_seed", &TensorColumns::sketch_seed},
      {"sketch", &TensorColumns::sketch},
      {"xxh3_64", &TensorColumns::xxh3_64},
  };
  TensorColumns c;
  const int n = sqlite3_column_count(s);
  for (int i = 0; i < n; ++i) {
    const char* name = sqlite3_column_name(s, i);  // "x" for a selected t.x (short column names)
    if (name == nullptr) continue;
    for (const auto& [known, member] : kNames) {
      if (known == name) c.*member = i;
    }
  }
  return c;
}

bool has_tensor(sqlite3_stmt* s, const TensorColumns& c) { return !is_null(s, c.role); }

Result<TensorSummary> read_tensor_row(sqlite3_stmt* s, const TensorColumns& c, const std::string& where) {
  TensorSummary t;
  t.role = text_of(s, c.role);
  const int64_t idx = int_of(s, c.idx);
  if (idx < 0 || idx > UINT32_MAX) return make_error(where, Stage::kStore, "tensor index out of range");
  t.index = static_cast<uint32_t>(idx);
  if (!is_null(s, c.sub_index)) t.sub_index = static_cast<uint32_t>(int_of(s, c.sub_index));
  t.dtype = text_of(s, c.dtype);
  MSIT_ASSIGN_OR_RETURN(t.shape, parse_dims(text_of(s, c.shape), where));
  t.format = text_of(s, c.format);
  MSIT_ASSIGN_OR_RETURN(t.original_shape, parse_dims(text_of(s, c.original_shape), where));
  t.count = u64_of(s, c.count);
  t.padding_included = int_of(s, c.padding_included) != 0;
  t.stats_available = int_of(s, c.stats_available) != 0;
  t.l2norm_available = int_of(s, c.l2norm_available) != 0;
  t.note = text_of(s, c.note);
  TensorStats& st = t.stats;
  MSIT_TRY(read_extreme(s, c.min, c.min_int, c.min_uint, true, st, where));
  MSIT_TRY(read_extreme(s, c.max, c.max_int, c.max_uint, false, st, where));
  st.mean = opt_real(s, c.mean);
  st.std = opt_real(s, c.std);
  st.abs_max = opt_real(s, c.abs_max);
  st.l2norm = real_of(s, c.l2norm);
  st.sum = real_of(s, c.sum);
  st.finite_count = u64_of(s, c.finite_count);
  st.nan_count = u64_of(s, c.nan_count);
  st.posinf_count = u64_of(s, c.posinf_count);
  st.neginf_count = u64_of(s, c.neginf_count);
  st.zero_count = u64_of(s, c.zero_count);
  st.count = t.count;
  if (!is_null(s, c.elements)) {
    const auto bytes = static_cast<size_t>(sqlite3_column_bytes(s, c.elements));
    if (bytes % sizeof(double) != 0) return make_error(where, Stage::kStore, "element blob is not whole float64s");
    st.values = doubles_of_blob<double>(sqlite3_column_blob(s, c.elements), bytes);
  }
  MSIT_ASSIGN_OR_RETURN(st.sketch, read_sketch(s, c, t.count, where));
  t.xxh3_64 = text_of(s, c.xxh3_64);
  return t;
}

ExtraBlock read_block_row(sqlite3_stmt* s) {
  ExtraBlock b;
  b.role = text_of(s, 0);
  b.index = static_cast<uint32_t>(sqlite3_column_int64(s, 1));
  b.size_bytes = u64_of(s, 2);
  b.xxh3_64 = text_of(s, 3);
  return b;
}

}  // namespace msit::store
