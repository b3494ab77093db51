// Reading and writing unpacked Cap'n Proto messages as byte strings. Untrusted bytes are copied
// into word-aligned memory and read under traversal limits; kj::Exception never leaves here.
#pragma once

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cstring>
#include <string>
#include <string_view>

#include "protocol/status.hpp"

namespace vasana {

inline std::string message_bytes(capnp::MessageBuilder& mb) {
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(mb);
  auto bytes = flat.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

// Calls fn(root reader) on the message in bytes. Returns Corruption when the bytes are not a
// well-formed message; fn returns a Status of its own.
template <class Root, class Fn>
Status read_message(std::string_view bytes, Fn&& fn) {
  if (bytes.empty() || bytes.size() % sizeof(capnp::word) != 0)
    return Status::Corruption("message size " + std::to_string(bytes.size()) + " is not a whole number of words");
  auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  capnp::ReaderOptions opts;
  opts.traversalLimitInWords = 8 * 1024 * 1024;
  opts.nestingLimit = 16;
  Status result;
  kj::Maybe<kj::Exception> failure = kj::runCatchingExceptions([&]() {
    capnp::FlatArrayMessageReader reader(words.asPtr(), opts);
    result = fn(reader.getRoot<Root>());
  });
  KJ_IF_MAYBE(e, failure) {
    return Status::Corruption(std::string("malformed message: ") + e->getDescription().cStr());
  }
  return result;
}

}  // namespace vasana
