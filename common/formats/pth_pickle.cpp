// A stack machine for the pickle opcodes torch.save emits for one tensor (protocol 2, plus the
// protocol-4 short forms). Values are immutable and shared, so memo reuse costs no copies.
#include "common/formats/pth_pickle.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

namespace msit {
namespace {

constexpr size_t kMaxStack = 4096, kMaxMemo = 4096, kMaxDepth = 32, kMaxTuple = 64;

struct Value;
using ValuePtr = std::shared_ptr<const Value>;

struct Value {
  enum class Kind : uint8_t { kNone, kBool, kInt, kStr, kTuple, kGlobal, kPersid, kTensor, kDict, kMark };
  Kind kind = Kind::kNone;
  int64_t i = 0;
  std::string s, s2;            // str; global module (s) and name (s2)
  std::vector<ValuePtr> items;  // tuple; persid holds its argument as items[0]
  PthTensorRef tensor;
  size_t depth = 1;
};

ValuePtr make(Value v) { return std::make_shared<const Value>(std::move(v)); }

class Machine {
 public:
  Machine(std::span<const std::byte> p, const std::string& path) : p_(p), path_(path) {}
  Result<PthTensorRef> run();

 private:
  Error unsupported(const std::string& what) const {
    return make_error(path_, Stage::kHeader, "unsupported .pth content: " + what);
  }
  Error corrupt(const std::string& what) const {
    return make_error(path_, Stage::kHeader, "corrupt .pth pickle at byte " + std::to_string(pos_) + ": " + what);
  }
  Result<uint64_t> uint_le(size_t n);
  Result<std::string> line();
  Result<std::string> bytes(uint64_t n);
  Status push(ValuePtr v);
  Result<ValuePtr> pop();
  Result<std::vector<ValuePtr>> pop_to_mark();
  Status tuple_of(std::vector<ValuePtr> items);
  Status reduce();
  Result<ValuePtr> rebuild_tensor(const std::vector<ValuePtr>& args);
  Status step(uint8_t op, bool& stop);

  std::span<const std::byte> p_;
  const std::string& path_;
  size_t pos_ = 0;
  std::vector<ValuePtr> stack_;
  std::map<uint64_t, ValuePtr> memo_;
};

Result<uint64_t> Machine::uint_le(size_t n) {
  if (p_.size() - pos_ < n) return corrupt("truncated argument");
  uint64_t v = 0;
  for (size_t k = 0; k < n; ++k) v |= uint64_t{std::to_integer<uint8_t>(p_[pos_ + k])} << (8 * k);
  pos_ += n;
  return v;
}

Result<std::string> Machine::line() {
  size_t start = pos_;
  while (pos_ < p_.size() && p_[pos_] != std::byte{'\n'}) {
    if (pos_ - start > 256) return corrupt("GLOBAL name longer than 256 bytes");
    ++pos_;
  }
  if (pos_ == p_.size()) return corrupt("unterminated GLOBAL name");
  std::string s(reinterpret_cast<const char*>(p_.data() + start), pos_ - start);
  ++pos_;
  return s;
}

Result<std::string> Machine::bytes(uint64_t n) {
  if (p_.size() - pos_ < n) return corrupt("string runs past the end of data.pkl");
  std::string s(reinterpret_cast<const char*>(p_.data() + pos_), static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return s;
}

Status Machine::push(ValuePtr v) {
  if (stack_.size() >= kMaxStack) return corrupt("stack deeper than 4096");
  stack_.push_back(std::move(v));
  return ok_status();
}

Result<ValuePtr> Machine::pop() {
  if (stack_.empty() || stack_.back()->kind == Value::Kind::kMark) return corrupt("stack underflow");
  ValuePtr v = std::move(stack_.back());
  stack_.pop_back();
  return v;
}

Result<std::vector<ValuePtr>> Machine::pop_to_mark() {
  size_t m = stack_.size();
  while (m > 0 && stack_[m - 1]->kind != Value::Kind::kMark) --m;
  if (m == 0) return corrupt("no MARK on the stack");
  std::vector<ValuePtr> items(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
  stack_.resize(m - 1);
  return items;
}

Status Machine::tuple_of(std::vector<ValuePtr> items) {
  if (items.size() > kMaxTuple) return unsupported("a tuple of " + std::to_string(items.size()) + " items");
  Value t;
  t.kind = Value::Kind::kTuple;
  for (const ValuePtr& it : items) t.depth = std::max(t.depth, it->depth + 1);
  if (t.depth > kMaxDepth) return unsupported("values nested deeper than 32");
  t.items = std::move(items);
  return push(make(std::move(t)));
}

bool is_global(const ValuePtr& v, std::string_view module, std::string_view name) {
  return v->kind == Value::Kind::kGlobal && v->s == module && v->s2 == name;
}

std::optional<std::vector<uint64_t>> int_tuple(const ValuePtr& v) {
  if (v->kind != Value::Kind::kTuple) return std::nullopt;
  std::vector<uint64_t> out;
  for (const ValuePtr& x : v->items) {
    if (x->kind != Value::Kind::kInt || x->i < 0) return std::nullopt;
    out.push_back(static_cast<uint64_t>(x->i));
  }
  return out;
}

const char* kind_text(Value::Kind k) {
  static constexpr const char* kNames[] = {"None",   "bool",          "int",    "str",  "tuple",
                                           "global", "persistent id", "tensor", "dict", "mark"};
  return kNames[static_cast<size_t>(k)];
}

Result<ValuePtr> Machine::rebuild_tensor(const std::vector<ValuePtr>& a) {
  // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  if (a.size() < 5 || a.size() > 7)
    return unsupported("_rebuild_tensor_v2 with " + std::to_string(a.size()) + " arguments");
  if (a[0]->kind != Value::Kind::kPersid)
    return unsupported("tensor storage is a " + std::string(kind_text(a[0]->kind)) + ", not a persistent id");
  const ValuePtr& st = a[0]->items.at(0);
  if (st->kind != Value::Kind::kTuple || st->items.size() != 5 || st->items[0]->kind != Value::Kind::kStr ||
      st->items[0]->s != "storage" || st->items[1]->kind != Value::Kind::kGlobal || st->items[1]->s != "torch" ||
      st->items[2]->kind != Value::Kind::kStr || st->items[3]->kind != Value::Kind::kStr ||
      st->items[4]->kind != Value::Kind::kInt || st->items[4]->i < 0) {
    return unsupported("persistent id is not ('storage', torch.<X>Storage, key, location, numel)");
  }
  Value t;
  t.kind = Value::Kind::kTensor;
  PthTensorRef& r = t.tensor;
  r.storage_class = st->items[1]->s2;
  r.key = st->items[2]->s;
  r.location = st->items[3]->s;
  r.storage_numel = static_cast<uint64_t>(st->items[4]->i);
  auto size = int_tuple(a[2]), stride = int_tuple(a[3]);
  if (a[1]->kind != Value::Kind::kInt || a[1]->i < 0 || !size || !stride || size->size() != stride->size()) {
    return unsupported("tensor offset/size/stride are not non-negative integers of equal rank");
  }
  r.storage_offset = static_cast<uint64_t>(a[1]->i);
  r.size = std::move(*size);
  r.stride = std::move(*stride);
  r.requires_grad = a[4]->kind == Value::Kind::kBool && a[4]->i != 0;
  return make(std::move(t));
}

Status Machine::reduce() {
  MSIT_ASSIGN_OR_RETURN(ValuePtr args, pop());
  MSIT_ASSIGN_OR_RETURN(ValuePtr fn, pop());
  if (args->kind != Value::Kind::kTuple) return corrupt("REDUCE arguments are not a tuple");
  if (is_global(fn, "torch._utils", "_rebuild_tensor_v2")) {
    MSIT_ASSIGN_OR_RETURN(ValuePtr t, rebuild_tensor(args->items));
    return push(std::move(t));
  }
  if (is_global(fn, "torch._utils", "_rebuild_parameter") && !args->items.empty() &&
      args->items[0]->kind == Value::Kind::kTensor) {
    return push(args->items[0]);  // nn.Parameter: the tensor it wraps
  }
  if (is_global(fn, "collections", "OrderedDict") && args->items.empty()) {
    Value d;
    d.kind = Value::Kind::kDict;
    return push(make(std::move(d)));
  }
  if (fn->kind == Value::Kind::kGlobal) return unsupported("call of " + fn->s + "." + fn->s2);
  return corrupt("REDUCE of a " + std::string(kind_text(fn->kind)));
}

Status Machine::step(uint8_t op, bool& stop) {
  Value v;
  switch (op) {
    case 0x80: MSIT_TRY(uint_le(1)); return ok_status();  // PROTO
    case '.': stop = true; return ok_status();            // STOP
    case '(': v.kind = Value::Kind::kMark; return push(make(std::move(v)));
    case 'N': return push(make(std::move(v)));
    case 0x88:
    case 0x89:
      v.kind = Value::Kind::kBool;
      v.i = op == 0x88;
      return push(make(std::move(v)));
    case 'K':
    case 'M':
    case 'J': {
      MSIT_ASSIGN_OR_RETURN(uint64_t u, uint_le(op == 'K' ? 1 : op == 'M' ? 2 : 4));
      v.kind = Value::Kind::kInt;
      v.i = op == 'J' ? static_cast<int32_t>(static_cast<uint32_t>(u)) : static_cast<int64_t>(u);
      return push(make(std::move(v)));
    }
    case 0x8a: {  // LONG1: n-byte two's complement
      MSIT_ASSIGN_OR_RETURN(uint64_t n, uint_le(1));
      if (n > 8) return unsupported("an integer wider than 64 bits");
      MSIT_ASSIGN_OR_RETURN(uint64_t u, uint_le(static_cast<size_t>(n)));
      if (n > 0 && n < 8 && (u >> (8 * n - 1)) & 1) u |= ~uint64_t{0} << (8 * n);
      v.kind = Value::Kind::kInt;
      v.i = static_cast<int64_t>(u);
      return push(make(std::move(v)));
    }
    case 'X':
    case 0x8c: {  // BINUNICODE, SHORT_BINUNICODE
      MSIT_ASSIGN_OR_RETURN(uint64_t n, uint_le(op == 'X' ? 4 : 1));
      v.kind = Value::Kind::kStr;
      MSIT_ASSIGN_OR_RETURN(v.s, bytes(n));
      return push(make(std::move(v)));
    }
    case 'c': {
      v.kind = Value::Kind::kGlobal;
      MSIT_ASSIGN_OR_RETURN(v.s, line());
      MSIT_ASSIGN_OR_RETURN(v.s2, line());
      return push(make(std::move(v)));
    }
    case ')': return tuple_of({});
    case 0x85:
    case 0x86:
    case 0x87: {  // TUPLE1..3
      std::vector<ValuePtr> items(static_cast<size_t>(op - 0x84));
      for (size_t k = items.size(); k-- > 0;) { MSIT_ASSIGN_OR_RETURN(items[k], pop()); }
      return tuple_of(std::move(items));
    }
    case 't': {
      MSIT_ASSIGN_OR_RETURN(std::vector<ValuePtr> items, pop_to_mark());
      return tuple_of(std::move(items));
    }
    case 'Q': {  // BINPERSID
      MSIT_ASSIGN_OR_RETURN(ValuePtr id, pop());
      v.kind = Value::Kind::kPersid;
      v.depth = id->depth + 1;
      if (v.depth > kMaxDepth) return unsupported("values nested deeper than 32");
      v.items.push_back(std::move(id));
      return push(make(std::move(v)));
    }
    case 'R': return reduce();
    case 'q':
    case 'r':
    case 0x94: {  // BINPUT, LONG_BINPUT, MEMOIZE
      uint64_t k = memo_.size();
      if (op != 0x94) { MSIT_ASSIGN_OR_RETURN(k, uint_le(op == 'q' ? 1 : 4)); }
      if (stack_.empty()) return corrupt("memo store from an empty stack");
      if (memo_.size() >= kMaxMemo && !memo_.count(k)) return corrupt("more than 4096 memo entries");
      memo_[k] = stack_.back();
      return ok_status();
    }
    case 'h':
    case 'j': {  // BINGET, LONG_BINGET
      MSIT_ASSIGN_OR_RETURN(uint64_t k, uint_le(op == 'h' ? 1 : 4));
      auto it = memo_.find(k);
      if (it == memo_.end()) return corrupt("memo key " + std::to_string(k) + " was never stored");
      return push(it->second);
    }
    case ']':
    case '}':
    case 'a':
    case 'e':
    case 's':
    case 'u': return unsupported("a list or dict (torch.save of one tensor is expected)");
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", op);
      return unsupported(std::string("pickle opcode ") + hex);
    }
  }
}

Result<PthTensorRef> Machine::run() {
  if (p_.size() > kMaxPthPickleBytes) return unsupported("data.pkl larger than 1 MiB");
  bool stop = false;
  while (!stop) {
    if (pos_ >= p_.size()) return corrupt("no STOP opcode");
    const auto op = std::to_integer<uint8_t>(p_[pos_++]);
    MSIT_TRY(step(op, stop));
  }
  if (stack_.size() != 1) return corrupt("stack holds " + std::to_string(stack_.size()) + " values at STOP");
  if (stack_[0]->kind != Value::Kind::kTensor) {
    return unsupported("the pickled object is a " + std::string(kind_text(stack_[0]->kind)) + ", not one tensor");
  }
  return stack_[0]->tensor;
}

}  // namespace

Result<PthTensorRef> parse_pth_pickle(std::span<const std::byte> pkl, const std::string& path) {
  return Machine(pkl, path).run();
}

}  // namespace msit
