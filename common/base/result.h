// Result<T>: a value or an Error naming the path, the stage and what went wrong.
// common/ and daemon/ return these instead of throwing.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include "common/base/stage.h"

namespace msit {

struct Error {
  std::string path;            // file the error is about (may be empty)
  Stage stage = Stage::kNone;  // open, header, payload, write, rename, unlink, ...
  std::string message;         // what is wrong, and where useful what to do
  int sys_errno = 0;           // errno when a syscall failed, else 0

  // "PATH: STAGE: MESSAGE (strerror)"
  std::string to_string() const;
};

Error make_error(std::string path, Stage stage, std::string message);
// Captures errno and its text at the call site.
Error make_sys_error(std::string path, Stage stage, std::string what, int err);

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  Error&& take_error() {
    assert(!ok());
    return std::get<1>(std::move(v_));
  }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace msit

// Propagates an error from an expression returning Result<...>.
#define MSIT_TRY(expr)                                      \
  do {                                                      \
    auto msit_try_r_ = (expr);                              \
    if (!msit_try_r_.ok()) return msit_try_r_.take_error(); \
  } while (0)

#define MSIT_CONCAT_INNER_(a, b) a##b
#define MSIT_CONCAT_(a, b) MSIT_CONCAT_INNER_(a, b)
// MSIT_ASSIGN_OR_RETURN(auto x, f()) binds the value or returns the error.
#define MSIT_ASSIGN_OR_RETURN(lhs, expr) MSIT_ASSIGN_OR_RETURN_IMPL_(MSIT_CONCAT_(msit_r_, __LINE__), lhs, expr)
#define MSIT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.take_error();           \
  lhs = std::move(tmp).value()
