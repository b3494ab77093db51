#include "protocol/status.hpp"

namespace vasana {

const char* code_name(Code c) {
  switch (c) {
    case Code::ok: return "ok";
    case Code::invalid_argument: return "invalid argument";
    case Code::corruption: return "corruption";
    case Code::io_error: return "I/O error";
    case Code::busy: return "busy";
    case Code::not_found: return "not found";
    case Code::failed_precondition: return "failed precondition";
    case Code::incompatible: return "incompatible";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(code_name(code_)) + ": " + message_;
}

}  // namespace vasana
