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

// An extreme goes to exactly one of its three columns: exact int64, exact uint64 as text (SQLite
// integers are signed), or a double for float tensors.
Status read_extreme(sqlite3_stmt* s, int real_col, int int_col, int uint_col, const ExtremeRef& e,
                    const std::string& where) {
  if (!is_null(s, int_col)) {
    int64_t v = int_of(s, int_col);
    e.i64 = v;
    e.real = static_cast<double>(v);
  } else if (!is_null(s, uint_col)) {
    MSIT_ASSIGN_OR_RETURN(uint64_t v, parse_u64(text_of(s, uint_col), where));
    e.u64 = v;
    e.real = static_cast<double>(v);
  } else {
    e.real = opt_real(s, real_col);
  }
  return ok_status();
}

Result<std::optional<Sketch>> read_sketch(sqlite3_stmt* s, int width_col, int seed_col, int blob_col,
                                          const std::string& where) {
  if (is_null(s, blob_col)) return std::optional<Sketch>();
  Sketch sk;
  const int64_t width = int_of(s, width_col);
  sk.seed = u64_of(s, seed_col);
  const void* blob = sqlite3_column_blob(s, blob_col);
  const auto bytes = static_cast<size_t>(sqlite3_column_bytes(s, blob_col));
  if (width <= 0 || width > (1 << 20) || (width & (width - 1)) != 0) {
    return make_error(where, Stage::kStore, "sketch width " + std::to_string(width) + " is not a power of two");
  }
  sk.width = static_cast<uint32_t>(width);
  if (bytes == sk.width * sizeof(float)) sk.values = doubles_of_blob<float>(blob, bytes);
  else if (bytes == sk.width * sizeof(double)) sk.values = doubles_of_blob<double>(blob, bytes);
  else
    return make_error(where, Stage::kStore,
                      "sketch blob of " + std::to_string(bytes) + " bytes for width " + std::to_string(width));
  return std::optional<Sketch>(std::move(sk));
}

void bind_sketch(sqlite3_stmt* s, int col, const Sketch& sk, SketchPrecision precision) {
  const std::vector<double>& v = sk.values;
  if (precision == SketchPrecision::kFloat32) {
    std::vector<float> f(v.begin(), v.end());
    sqlite3_bind_blob(s, col, f.data(), static_cast<int>(f.size() * sizeof(float)), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_blob(s, col, v.data(), static_cast<int>(v.size() * sizeof(double)), SQLITE_TRANSIENT);
  }
}

void bind_elements(sqlite3_stmt* s, int col, const std::optional<std::vector<double>>& values) {
  if (values && values->empty()) {
    sqlite3_bind_zeroblob(s, col, 0);  // an empty tensor has values, none of them: not NULL
  } else if (values) {
    sqlite3_bind_blob(s, col, values->data(), static_cast<int>(values->size() * sizeof(double)), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(s, col);
  }
}

// One cell of row I of kTensorFields (tensor_fields.h), bound as parameter `col`.
template <size_t I, class V>
void bind_field(sqlite3_stmt* s, int col, const V& v, SketchPrecision precision) {
  constexpr FieldKind kind = kTensorFields[I].kind;
  if constexpr (kind == FieldKind::kText) bind_text(s, col, v);
  else if constexpr (kind == FieldKind::kOptText) bind_opt_text(s, col, v);
  else if constexpr (kind == FieldKind::kU32) sqlite3_bind_int64(s, col, v);
  else if constexpr (kind == FieldKind::kOptU32) {
    if (v) sqlite3_bind_int64(s, col, *v);
    else sqlite3_bind_null(s, col);
  } else if constexpr (kind == FieldKind::kDims) bind_text(s, col, dims_text(v));
  else if constexpr (kind == FieldKind::kU64) bind_u64(s, col, v);
  else if constexpr (kind == FieldKind::kFlag) sqlite3_bind_int(s, col, v ? 1 : 0);
  else if constexpr (kind == FieldKind::kOptReal) bind_finite(s, col, v);
  else if constexpr (kind == FieldKind::kReal) sqlite3_bind_double(s, col, std::isfinite(v) ? v : 0.0);
  else if constexpr (kind == FieldKind::kExtreme) {
    if (v.i64 || v.u64) sqlite3_bind_null(s, col);
    else bind_finite(s, col, v.real);
  } else if constexpr (kind == FieldKind::kExtremeInt) {
    if (v.i64) sqlite3_bind_int64(s, col, *v.i64);
    else sqlite3_bind_null(s, col);
  } else if constexpr (kind == FieldKind::kExtremeUint) {
    if (!v.i64 && v.u64) bind_text(s, col, std::to_string(*v.u64));
    else sqlite3_bind_null(s, col);
  } else if constexpr (kind == FieldKind::kElements) bind_elements(s, col, v);
  else if constexpr (kind == FieldKind::kSketchWidth) {
    if (v) sqlite3_bind_int64(s, col, v->width);
    else sqlite3_bind_null(s, col);
  } else if constexpr (kind == FieldKind::kSketchSeed) {
    if (v) bind_u64(s, col, v->seed);
    else sqlite3_bind_null(s, col);
  } else if constexpr (kind == FieldKind::kSketch) {
    if (v) bind_sketch(s, col, *v, precision);
    else sqlite3_bind_null(s, col);
  } else {
    static_assert(I != I, "a field kind the store cannot bind");
  }
}

// Whether reading a kind can fail (a value out of range, a malformed shape or blob).
constexpr bool can_fail(FieldKind k) {
  return k == FieldKind::kU32 || k == FieldKind::kDims || k == FieldKind::kExtreme || k == FieldKind::kElements ||
         k == FieldKind::kSketch;
}

// Row I of kTensorFields from its column of the statement's current row, for a kind that
// cannot fail (no Status per cell: reads are the hot path of compare over stores). A store
// part is read with its owner (the extreme, the sketch).
template <size_t I, class V>
void read_cell(sqlite3_stmt* s, const TensorColumns& c, V&& v) {
  constexpr FieldKind kind = kTensorFields[I].kind;
  const int col = c.at[I];
  if constexpr (kind == FieldKind::kText || kind == FieldKind::kOptText) v = text_of(s, col);
  else if constexpr (kind == FieldKind::kOptU32) {
    if (!is_null(s, col)) v = static_cast<uint32_t>(int_of(s, col));
  } else if constexpr (kind == FieldKind::kU64) v = u64_of(s, col);
  else if constexpr (kind == FieldKind::kFlag) v = int_of(s, col) != 0;
  else if constexpr (kind == FieldKind::kOptReal) v = opt_real(s, col);
  else if constexpr (kind == FieldKind::kReal) v = real_of(s, col);
  else if constexpr (kind != FieldKind::kExtremeInt && kind != FieldKind::kExtremeUint &&
                     kind != FieldKind::kSketchWidth && kind != FieldKind::kSketchSeed)
    static_assert(I != I, "a field kind the store cannot read");
}

// The same for a kind whose value is checked; `where` names the error.
template <size_t I, class V>
Status read_checked(sqlite3_stmt* s, const TensorColumns& c, V&& v, const std::string& where) {
  constexpr TensorField d = kTensorFields[I];
  const int col = c.at[I];
  if constexpr (d.kind == FieldKind::kU32) {
    const int64_t x = int_of(s, col);
    if (x < 0 || x > UINT32_MAX)
      return make_error(where, Stage::kStore, "tensor " + std::string(d.json_key) + " out of range");
    v = static_cast<uint32_t>(x);
  } else if constexpr (d.kind == FieldKind::kDims) {
    MSIT_ASSIGN_OR_RETURN(v, parse_dims(text_of(s, col), where));
  } else if constexpr (d.kind == FieldKind::kExtreme) {
    constexpr size_t kInt = tensor_field_part(I, FieldKind::kExtremeInt);
    constexpr size_t kUint = tensor_field_part(I, FieldKind::kExtremeUint);
    static_assert(kInt < kTensorFieldCount && kUint < kTensorFieldCount, "an extreme without its store parts");
    return read_extreme(s, col, c.at[kInt], c.at[kUint], v, where);
  } else if constexpr (d.kind == FieldKind::kElements) {
    if (!is_null(s, col)) {
      const auto bytes = static_cast<size_t>(sqlite3_column_bytes(s, col));
      if (bytes % sizeof(double) != 0) return make_error(where, Stage::kStore, "element blob is not whole float64s");
      v = doubles_of_blob<double>(sqlite3_column_blob(s, col), bytes);
    }
  } else if constexpr (d.kind == FieldKind::kSketch) {
    constexpr size_t kWidth = tensor_field_part(I, FieldKind::kSketchWidth);
    constexpr size_t kSeed = tensor_field_part(I, FieldKind::kSketchSeed);
    static_assert(kWidth < kTensorFieldCount && kSeed < kTensorFieldCount, "a sketch without its store parts");
    MSIT_ASSIGN_OR_RETURN(v, read_sketch(s, c.at[kWidth], c.at[kSeed], col, where));
  } else {
    static_assert(I != I, "can_fail() and read_checked() disagree");
  }
  return ok_status();
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
  for_each_file_field(f, [&](auto row, const auto& v) {
    constexpr FileField d = kFileFields[row];
    if constexpr (has_column(d)) {
      constexpr int p = file_param(row());
      if constexpr (d.kind == FileFieldKind::kText) bind_text(s, p, v);
      else if constexpr (d.kind == FileFieldKind::kU64) bind_u64(s, p, v);
      else if constexpr (d.kind == FileFieldKind::kI64) sqlite3_bind_int64(s, p, v);
      else if constexpr (d.kind == FileFieldKind::kDev) bind_u64(s, p, static_cast<uint64_t>(e.identity.dev));
      else if constexpr (d.kind == FileFieldKind::kIno) bind_u64(s, p, static_cast<uint64_t>(e.identity.ino));
      else if constexpr (d.kind == FileFieldKind::kOpText) {
        if (f.op) bind_text(s, p, (*f.op).*v);
        else sqlite3_bind_null(s, p);
      } else if constexpr (d.kind == FileFieldKind::kOpOptText) {
        if (f.op) bind_opt_text(s, p, (*f.op).*v);
        else sqlite3_bind_null(s, p);
      } else if constexpr (d.kind == FileFieldKind::kStoredAt) sqlite3_bind_int64(s, p, now_ns);
      else if constexpr (d.kind == FileFieldKind::kBlockCount)
        sqlite3_bind_int64(s, p, static_cast<int64_t>(f.extra_blocks.size()));
      else static_assert(row() != row(), "a file field kind the store cannot write");
    }
  });
}

void bind_tensor(sqlite3_stmt* s, int64_t file_id, int ord, const TensorSummary& t, SketchPrecision precision) {
  sqlite3_bind_int64(s, 1, file_id);
  sqlite3_bind_int(s, 2, ord);
  for_each_tensor_field(t, [&](auto row, const auto& v) { bind_field<row()>(s, tensor_param(row()), v, precision); });
}

std::string tensor_column_list(std::string_view prefix, int version, bool compare_only) {
  std::string out;
  for (const TensorField& f : kTensorFields) {
    if (f.since_store_version > version || (compare_only && !f.compare_reads)) continue;
    if (!out.empty()) out += ", ";
    out += prefix;
    out += f.name;
  }
  return out;
}

std::string tensor_param_list(int version) {
  std::string out;
  for (size_t i = 0; i < kTensorFieldCount; ++i) {
    if (kTensorFields[i].since_store_version > version) continue;
    if (!out.empty()) out += ',';
    out += '?' + std::to_string(tensor_param(i));
  }
  return out;
}

std::string block_column_list() {
  std::string out;
  for (const BlockField& f : kBlockFields) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

void bind_block(sqlite3_stmt* s, int64_t file_id, int ord, const ExtraBlock& b) {
  sqlite3_bind_int64(s, 1, file_id);
  sqlite3_bind_int(s, 2, ord);
  for_each_block_field(b, [&](auto row, const auto& v) {
    constexpr BlockField d = kBlockFields[row];
    constexpr int param = block_param(row);
    if constexpr (d.kind == BlockFieldKind::kText) bind_text(s, param, v);
    else if constexpr (d.kind == BlockFieldKind::kU32) sqlite3_bind_int64(s, param, v);
    else if constexpr (d.kind == BlockFieldKind::kU64) bind_u64(s, param, v);
    else static_assert(row() != row(), "a block field kind the store cannot bind");
  });
}

int64_t read_file_row(sqlite3_stmt* s, FileSummary& out) {
  // The file has an op when its op_type is there (all its op columns are NULL, or none).
  constexpr size_t kOpType = file_field_index("op_type");
  static_assert(kFileFields[kOpType].read_back && kFileFields[kOpType].kind == FileFieldKind::kOpText);
  if (!is_null(s, file_read_ordinal(kOpType))) out.op.emplace();
  int64_t blocks = 0;
  for_each_file_field(out, [&](auto row, auto&& v) {
    constexpr FileField d = kFileFields[row];
    if constexpr (d.read_back) {
      constexpr int c = file_read_ordinal(row());
      if constexpr (d.kind == FileFieldKind::kText) v = text_of(s, c);
      else if constexpr (d.kind == FileFieldKind::kU64) v = u64_of(s, c);
      else if constexpr (d.kind == FileFieldKind::kI64) v = sqlite3_column_int64(s, c);
      else if constexpr (d.kind == FileFieldKind::kOpText || d.kind == FileFieldKind::kOpOptText) {
        if (out.op) (*out.op).*v = text_of(s, c);
      } else if constexpr (d.kind == FileFieldKind::kBlockCount) blocks = sqlite3_column_int64(s, c);
      else static_assert(row() != row(), "a file field kind the store cannot read back");
    }
  });
  return blocks;
}

std::string file_column_list(std::string_view prefix, int version, bool read_back_only) {
  std::string out;
  for (const FileField& f : kFileFields) {
    if (!has_column(f) || f.since_store_version > version || (read_back_only && !f.read_back)) continue;
    if (!out.empty()) out += ", ";
    out += prefix;
    out += f.name;
  }
  return out;
}

TensorColumns tensor_columns_of(sqlite3_stmt* s) {
  TensorColumns c;
  const int n = sqlite3_column_count(s);
  for (int i = 0; i < n; ++i) {
    const char* name = sqlite3_column_name(s, i);  // "x" for a selected t.x (short column names)
    if (name == nullptr) continue;
    if (std::string_view(name) == "file_id") c.file_id = i;
    for (size_t f = 0; f < kTensorFieldCount; ++f) {
      if (kTensorFields[f].name == name) c.at[f] = i;
    }
  }
  return c;
}

bool has_tensor(sqlite3_stmt* s, const TensorColumns& c) { return !is_null(s, c.at[tensor_field_index("role")]); }

Result<TensorSummary> read_tensor_row(sqlite3_stmt* s, const TensorColumns& c, const std::string& where) {
  TensorSummary t;
  Status st = ok_status();
  for_each_tensor_field(t, [&](auto row, auto&& v) {
    if constexpr (!can_fail(kTensorFields[row].kind)) read_cell<row()>(s, c, v);
    else if (st.ok()) st = read_checked<row()>(s, c, v, where);
  });
  MSIT_TRY(st);
  t.stats.count = t.count;
  return t;
}

ExtraBlock read_block_row(sqlite3_stmt* s) {
  ExtraBlock b;
  for_each_block_field(b, [&](auto row, auto& v) {
    constexpr BlockField d = kBlockFields[row];
    constexpr int col = static_cast<int>(row());
    if constexpr (d.kind == BlockFieldKind::kText) v = text_of(s, col);
    else if constexpr (d.kind == BlockFieldKind::kU32) v = static_cast<uint32_t>(sqlite3_column_int64(s, col));
    else if constexpr (d.kind == BlockFieldKind::kU64) v = u64_of(s, col);
    else static_assert(row() != row(), "a block field kind the store cannot read");
  });
  return b;
}

}  // namespace msit::store
