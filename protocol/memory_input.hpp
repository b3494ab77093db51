// A memory as a client submits it, before it becomes a put_memory op, and the checks every
// submission passes on the client and again on the node (the node never trusts a client).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

constexpr int64_t kOpenPast = std::numeric_limits<int64_t>::min();
constexpr int64_t kOpenFuture = std::numeric_limits<int64_t>::max();

struct MemoryInput {
  std::string realm;
  std::string kind = "insight";
  std::string text;
  std::vector<std::string> tags;
  std::string ref;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  std::string source_session;
  std::string source_tool;
  std::vector<float> vector;
  std::string status = "active";          // memory_statuses(); the node may hold it proposed for review
  std::string epistemic = "user_stated";  // epistemic_names(): where the claim comes from
  float confidence = 1.0f;                // 0..1
  bool pinned = false;
};

struct InputLimits {
  size_t max_text_bytes = 64 * 1024;  // config: limits.max_memory_bytes
  size_t vector_dim = 0;              // a client vector must have exactly this many; 0 = not checked
};

constexpr size_t kMaxRealmBytes = 128;
constexpr size_t kMaxRefBytes = 256;
constexpr size_t kMaxTagBytes = 128;
constexpr size_t kMaxTags = 64;
constexpr size_t kMaxSourceBytes = 256;
constexpr size_t kMaxVectorDim = 4096;

// The six kinds of DESIGN.md, in schema order.
const std::vector<std::string_view>& memory_kinds();
bool is_memory_kind(std::string_view k);

// The seven statuses and four epistemic origins of protocol/ops.capnp, in schema order.
const std::vector<std::string_view>& memory_statuses();
bool is_memory_status(std::string_view s);
const std::vector<std::string_view>& epistemic_names();
bool is_epistemic_name(std::string_view e);

// True when s is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s);

// Ok, or InvalidArgument naming the field and what is wrong with it. No field may hold a NUL
// byte (Cap'n Proto text and C strings end at one, so the stored value would be cut short);
// realm, ref and tags may hold no control character at all.
Status validate_memory(const MemoryInput& m, const InputLimits& limits);

// One text field: InvalidArgument naming it when required and empty, longer than max bytes,
// not UTF-8, or holding a NUL byte.
Status check_text(std::string_view name, std::string_view v, size_t max, bool required);

// The realm rules of validate_memory, for every request that names a realm (recall too).
Status check_realm(std::string_view realm);

// The times a client may give: 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z (what the
// text form can write). The open bounds kOpenPast and kOpenFuture are not times: a client leaves
// a valid-time bound out to make it open, and can never send one as a time (it would be stored
// as open, the opposite of what it says).
constexpr int64_t kMinTimeMs = -62167219200000;  // 0000-01-01T00:00:00.000Z
constexpr int64_t kMaxTimeMs = 253402300799999;  // 9999-12-31T23:59:59.999Z
bool is_supported_time_ms(int64_t ms);
// Ok, or InvalidArgument naming the field, the value and the supported range.
Status check_time_ms(std::string_view name, int64_t ms);
// A valid time as the protocol carries it, on the client and again on the node: from is
// kOpenPast (open) or a supported time, to is kOpenFuture (open) or a supported time, and from
// is not after to. InvalidArgument naming the bound ("<what> valid-from ..."; what may be "").
Status check_valid_time_ms(std::string_view what, int64_t from, int64_t to);
// How the accepted time forms are described in error messages.
inline constexpr std::string_view kTimeFormsHelp =
    "use 2026-11-30, 2026-11-30T12:00:00Z or epoch milliseconds, from year 0000 to 9999 "
    "(-62167219200000 to 253402300799999 ms)";

// Parses "2026-11-30", "2026-11-30T12:34:56Z", "2026-11-30T12:34:56.789Z" (UTC only) or a
// plain integer of milliseconds since the epoch; nullopt for anything else, including an
// integer outside the supported times (is_supported_time_ms: the open bounds too).
std::optional<int64_t> parse_time_ms(std::string_view s);
// The inverse for display: "2026-11-30T12:34:56.789Z"; "open" for the two open bounds. Any
// other int64 is written exactly too (years past 9999 with more digits, years before 0000 with
// a minus sign), so stored data from anywhere prints without overflow.
std::string format_time_ms(int64_t ms);

}  // namespace vasana
