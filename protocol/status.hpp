// Errors as values. Every fallible function in vasana returns a Status or a Result<T>;
// exceptions from libraries (kj::Exception, zmq::error_t, std::filesystem) are converted at
// the edge and never cross an actor or a socket.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace vasana {

enum class Code {
  ok,
  invalid_argument,     // bad input from a user or a client: nothing was written
  corruption,           // bytes on disk or on the wire failed verification
  io_error,             // the operating system refused a file or socket operation
  busy,                 // a resource (the data-directory lock) is held by someone else
  not_found,
  failed_precondition,  // the operation cannot run in the current state (read-only writer)
  incompatible,         // a different vector space, format version or protocol version
};

const char* code_name(Code c);

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return Status(Code::invalid_argument, std::move(m)); }
  static Status Corruption(std::string m) { return Status(Code::corruption, std::move(m)); }
  static Status IoError(std::string m) { return Status(Code::io_error, std::move(m)); }
  static Status Busy(std::string m) { return Status(Code::busy, std::move(m)); }
  static Status NotFound(std::string m) { return Status(Code::not_found, std::move(m)); }
  static Status FailedPrecondition(std::string m) { return Status(Code::failed_precondition, std::move(m)); }
  static Status Incompatible(std::string m) { return Status(Code::incompatible, std::move(m)); }

  bool ok() const { return code_ == Code::ok; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "corruption: segment 3 offset 4096: CRC mismatch"
  std::string to_string() const;

 private:
  Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
  Code code_ = Code::ok;
  std::string message_;
};

// A value or the Status that explains why there is none. A Result never holds an ok Status.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Status s) : v_(std::move(s)) {}

  bool ok() const { return v_.index() == 0; }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const Status& status() const {
    static const Status ok_status;
    return ok() ? ok_status : std::get<1>(v_);
  }

 private:
  std::variant<T, Status> v_;
};

}  // namespace vasana
