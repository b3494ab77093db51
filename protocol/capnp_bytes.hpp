// Reading and writing unpacked Cap'n Proto messages as byte strings. Untrusted bytes are read in
// word-aligned memory under traversal limits; kj::Exception never leaves here.
#pragma once

#include <capnp/blob.h>
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/exception.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

// std::string to and from Cap'n Proto Text by length: the implicit conversions go through
// c_str() and cut the text at its first NUL, so a validator would never see the rest.
inline capnp::Text::Reader text_of(const std::string& s) { return capnp::Text::Reader(s.data(), s.size()); }
inline std::string string_of(capnp::Text::Reader t) { return std::string(t.cStr(), t.size()); }

inline std::string message_bytes(capnp::MessageBuilder& mb) {
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(mb);
  auto bytes = flat.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

namespace detail {
// Word-aligned scratch memory for read_message, one per thread, reused from message to message
// (a catch-up reads hundreds of thousands of ops a second: a heap array each was a malloc and a
// free per op). A read_message inside another's fn finds it busy and takes a heap array.
// Messages above kMaxWords (a peer's chunk of segments) take a heap array, so that a thread does
// not keep megabytes after one large message.
struct MessageScratch {
  static constexpr size_t kMaxWords = 32 * 1024;  // 256 KiB
  kj::Array<capnp::word> words;  // capnp::word cannot be copied, so not a std::vector (clang refuses one)
  bool busy = false;
};
// Holds the scratch while a message is read from it.
struct ScratchClaim {
  MessageScratch* held = nullptr;
  ~ScratchClaim() {
    if (held) held->busy = false;
  }
};
inline MessageScratch& message_scratch() {
  thread_local MessageScratch s;
  return s;
}
}  // namespace detail

// The bounds read_message applies unless told others: at most 64 MiB read, 16 levels deep.
inline capnp::ReaderOptions default_reader_options() {
  capnp::ReaderOptions opts;
  opts.traversalLimitInWords = 8 * 1024 * 1024;
  opts.nestingLimit = 16;
  return opts;
}

// Calls fn(root reader) on the message in bytes, read under opts. Returns Corruption when the
// bytes are not a well-formed message or reading them passes opts' bounds; fn returns a Status
// of its own. Bytes at a word-aligned address are read in place; others are copied into aligned
// memory first.
template <class Root, class Fn>
Status read_message(std::string_view bytes, Fn&& fn, const capnp::ReaderOptions& opts = default_reader_options()) {
  if (bytes.empty() || bytes.size() % sizeof(capnp::word) != 0)
    return Status::Corruption("message size " + std::to_string(bytes.size()) + " is not a whole number of words");
  const size_t n = bytes.size() / sizeof(capnp::word);
  kj::ArrayPtr<const capnp::word> words;
  kj::Array<capnp::word> own;  // when the scratch is busy or too small
  detail::MessageScratch& scratch = detail::message_scratch();
  detail::ScratchClaim claim;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(capnp::word) == 0) {
    words = kj::arrayPtr(reinterpret_cast<const capnp::word*>(bytes.data()), n);
  } else if (!scratch.busy && n <= detail::MessageScratch::kMaxWords) {
    if (scratch.words.size() < n) scratch.words = kj::heapArray<capnp::word>(n);  // grows; contents are scratch
    std::memcpy(scratch.words.begin(), bytes.data(), bytes.size());
    words = kj::arrayPtr(scratch.words.begin(), n);
    scratch.busy = true;
    claim.held = &scratch;
  } else {
    own = kj::heapArray<capnp::word>(n);
    std::memcpy(own.begin(), bytes.data(), bytes.size());
    words = own.asPtr();
  }
  Status result;
  kj::Maybe<kj::Exception> failure = kj::runCatchingExceptions([&]() {
    capnp::FlatArrayMessageReader reader(words, opts);
    result = fn(reader.getRoot<Root>());
  });
  KJ_IF_MAYBE(e, failure) {
    return Status::Corruption(std::string("malformed message: ") + e->getDescription().cStr());
  }
  return result;
}

}  // namespace vasana
