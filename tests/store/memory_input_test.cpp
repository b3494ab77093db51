// protocol/memory_input.hpp: the checks every submitted memory passes, and the time forms.
#include <catch2/catch.hpp>

#include <string>

#include "protocol/memory_input.hpp"

using namespace vasana;

namespace {

MemoryInput good_memory() {
  MemoryInput m;
  m.realm = "project-x";
  m.kind = "preference";
  m.text = "Prefers tabs — ünïcödé is fine 🙂";
  m.tags = {"style"};
  m.valid_from_ms = 1000;
  m.valid_to_ms = 2000;
  return m;
}

void check_rejected(const MemoryInput& m, const std::string& names, const InputLimits& limits = {}) {
  Status s = validate_memory(m, limits);
  CHECK(s.code() == Code::invalid_argument);
  CHECK_THAT(s.message(), Catch::Contains(names));
}

}  // namespace

TEST_CASE("a well-formed memory passes validation", "[protocol]") {
  CHECK(validate_memory(good_memory(), InputLimits{}).ok());
  MemoryInput open = good_memory();
  open.valid_from_ms = kOpenPast;
  open.valid_to_ms = kOpenFuture;
  CHECK(validate_memory(open, InputLimits{}).ok());
  MemoryInput instant = good_memory();
  instant.valid_to_ms = instant.valid_from_ms;  // an instant is a valid interval
  CHECK(validate_memory(instant, InputLimits{}).ok());
}

TEST_CASE("validation rejects a missing realm, an unknown kind, oversized text and a reversed interval",
          "[protocol]") {
  MemoryInput m = good_memory();
  m.realm.clear();
  check_rejected(m, "realm");

  m = good_memory();
  m.kind = "rumour";
  check_rejected(m, "unknown kind 'rumour'");

  InputLimits small;
  small.max_text_bytes = 16;
  m = good_memory();
  m.text = std::string(17, 'a');
  check_rejected(m, "text is 17 bytes; the limit is 16", small);
  m.text = std::string(16, 'a');
  CHECK(validate_memory(m, small).ok());  // exactly at the limit

  m = good_memory();
  m.text = std::string(InputLimits{}.max_text_bytes + 1, 'a');
  check_rejected(m, "text");

  m = good_memory();
  m.valid_from_ms = 2001;
  m.valid_to_ms = 2000;
  check_rejected(m, "valid-from");
}

TEST_CASE("validation rejects invalid UTF-8: overlong, surrogate, truncated, above U+10FFFF", "[protocol]") {
  CHECK(is_valid_utf8("plain ascii"));
  CHECK(is_valid_utf8("\xC3\xA9"));          // é
  CHECK(is_valid_utf8("\xED\x9F\xBF"));      // U+D7FF, just below the surrogates
  CHECK(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
  const char* bad[] = {
      "\xC0\xAF",          // overlong '/'
      "\xE0\x80\xAF",      // overlong '/' in three bytes
      "\xF0\x80\x80\xAF",  // overlong '/' in four bytes
      "\xED\xA0\x80",      // U+D800, a surrogate
      "\xED\xBF\xBF",      // U+DFFF
      "\xE2\x82",          // € cut after two of its three bytes
      "ok\xF0\x9F\x99",    // 🙂 cut short at the end
      "\xF4\x90\x80\x80",  // U+110000
      "\x80",              // a lone continuation byte
      "\xFF",
  };
  for (const char* b : bad) {
    INFO("bytes: " << b);
    CHECK_FALSE(is_valid_utf8(b));
    MemoryInput m = good_memory();
    m.text = std::string("text ") + b;
    check_rejected(m, "text is not valid UTF-8");
  }
}

TEST_CASE("parse_time_ms accepts the documented forms and rejects impossible dates", "[protocol]") {
  // 2026-11-30T00:00:00Z is 1795996800 s after the epoch (date -u -d 2026-11-30 +%s).
  const int64_t day = 1795996800000;
  CHECK(parse_time_ms("2026-11-30T00:00:00Z") == day);
  CHECK(parse_time_ms("2026-11-30T12:34:56Z") == day + (12 * 3600 + 34 * 60 + 56) * 1000);
  CHECK(parse_time_ms("2026-11-30T12:34:56.789Z") == day + (12 * 3600 + 34 * 60 + 56) * 1000 + 789);
  CHECK(parse_time_ms("1795996800000") == day);
  CHECK(parse_time_ms("0") == 0);
  CHECK(parse_time_ms("2024-02-29T00:00:00Z").has_value());  // leap year
  CHECK(parse_time_ms("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_time_ms("2026-11-30") == day);  // the date-only form of the header comment

  CHECK_FALSE(parse_time_ms("2026-02-30").has_value());
  CHECK_FALSE(parse_time_ms("2026-02-30T00:00:00Z").has_value());
  CHECK_FALSE(parse_time_ms("2023-02-29T00:00:00Z").has_value());
  CHECK_FALSE(parse_time_ms("2026-13-01T00:00:00Z").has_value());
  CHECK_FALSE(parse_time_ms("2026-11-31T00:00:00Z").has_value());
  CHECK_FALSE(parse_time_ms("2026-11-30T24:00:00Z").has_value());
  CHECK_FALSE(parse_time_ms("2026-11-30T12:34:56").has_value());       // no Z: not UTC
  CHECK_FALSE(parse_time_ms("2026-11-30T12:34:56+01:00").has_value());
  CHECK_FALSE(parse_time_ms("2026-11-30T12:34:56.78Z").has_value());
  CHECK_FALSE(parse_time_ms("2026-11-30T12:34:56.-12Z").has_value());  // a fraction is three digits
  CHECK_FALSE(parse_time_ms("2026-11-3").has_value());
  CHECK_FALSE(parse_time_ms("-").has_value());
  CHECK_FALSE(parse_time_ms("yesterday").has_value());
  CHECK_FALSE(parse_time_ms("").has_value());
}

TEST_CASE("a vector of another dimension than the store's is refused naming both numbers", "[protocol]") {
  MemoryInput m;
  m.realm = "work";
  m.text = "t";
  m.vector = std::vector<float>(384, 0.1f);
  InputLimits limits;
  limits.vector_dim = 384;
  CHECK(validate_memory(m, limits).ok());
  m.vector.resize(3);
  Status s = validate_memory(m, limits);
  CHECK(s.code() == Code::invalid_argument);
  CHECK_THAT(s.message(), Catch::Contains("vector has 3 dimensions") && Catch::Contains("384"));
  limits.vector_dim = 0;  // not checked
  CHECK(validate_memory(m, limits).ok());
}

TEST_CASE("validation refuses a NUL byte in every text field, and control characters in realm, ref and tags",
          "[protocol]") {
  const std::string nul("a\0b", 3);
  MemoryInput m = good_memory();
  m.text = "nul" + nul;
  check_rejected(m, "text contains a NUL byte");
  m = good_memory();
  m.ref = nul;
  check_rejected(m, "ref contains a NUL byte");
  m = good_memory();
  m.tags = {"ok", nul};
  check_rejected(m, "tag contains a NUL byte");
  m = good_memory();
  m.realm = nul;
  check_rejected(m, "realm contains a NUL byte");
  m = good_memory();
  m.source_session = nul;
  check_rejected(m, "source session contains a NUL byte");

  for (const char* bad : {"line\nbreak", "tab\there", "esc\x1b[0m", "bell\a"}) {
    INFO(bad);
    m = good_memory();
    m.ref = bad;
    check_rejected(m, "ref contains control characters");
    m = good_memory();
    m.tags = {bad};
    check_rejected(m, "tag contains control characters");
    m = good_memory();
    m.realm = bad;
    check_rejected(m, "realm contains control characters");
  }
  // The positive control: text may hold line breaks and tabs, a ref and tags any printable text.
  m = good_memory();
  m.text = "first line\n\tsecond line";
  m.ref = "doc-1 §2 (v3)";
  m.tags = {"ünïcödé", "with space"};
  CHECK(validate_memory(m, InputLimits{}).ok());
}

TEST_CASE("validation refuses times outside the years 0000 to 9999 but keeps the open bounds", "[protocol]") {
  MemoryInput m = good_memory();
  m.valid_from_ms = kMinTimeMs;
  m.valid_to_ms = kMaxTimeMs;
  CHECK(validate_memory(m, InputLimits{}).ok());
  m.valid_from_ms = kOpenPast;
  m.valid_to_ms = kOpenFuture;
  CHECK(validate_memory(m, InputLimits{}).ok());

  m = good_memory();
  m.valid_from_ms = kMinTimeMs - 1;
  check_rejected(m, "valid-from -62167219200001 ms is outside the supported times");
  m = good_memory();
  m.valid_to_ms = kMaxTimeMs + 1;
  check_rejected(m, "valid-to 253402300800000 ms is outside");
  m = good_memory();
  m.valid_from_ms = -1;  // 18446744073709551615 read as an int64
  m.valid_to_ms = kOpenFuture - 1;
  check_rejected(m, "valid-to");

  CHECK(parse_time_ms("253402300799999") == kMaxTimeMs);
  CHECK(parse_time_ms("-62167219200000") == kMinTimeMs);
  CHECK(parse_time_ms("9999-12-31T23:59:59.999Z") == kMaxTimeMs);
  CHECK(parse_time_ms("0000-01-01") == kMinTimeMs);
  CHECK_FALSE(parse_time_ms("9223372036854775807").has_value());  // the open end is no time
  CHECK_FALSE(parse_time_ms("-9223372036854775808").has_value());
  CHECK_FALSE(parse_time_ms("253402300800000").has_value());
  CHECK_FALSE(parse_time_ms("9223372036854775806").has_value());
  CHECK_FALSE(parse_time_ms("18446744073709551615").has_value());
  CHECK_FALSE(parse_time_ms("-9223372036854775809").has_value());
}

TEST_CASE("an open bound's int64 extreme is refused as a time, and in the other bound's place", "[protocol]") {
  CHECK_FALSE(is_supported_time_ms(kOpenPast));
  CHECK_FALSE(is_supported_time_ms(kOpenFuture));
  CHECK(check_time_ms("as-of", kOpenPast).message() ==
        "as-of -9223372036854775808 ms is outside the supported times (epoch milliseconds -62167219200000 to "
        "253402300799999, years 0000 to 9999)");
  MemoryInput m = good_memory();
  m.valid_from_ms = kOpenFuture;  // starts at the open end: stored, it would read as open from the start
  check_rejected(m, "valid-from 9223372036854775807 ms is outside the supported times");
  m = good_memory();
  m.valid_to_ms = kOpenPast;
  check_rejected(m, "valid-to -9223372036854775808 ms is outside the supported times");
  CHECK(check_valid_time_ms("update", kOpenFuture, kOpenFuture).message().rfind("update valid-from 9223372036854775807", 0) == 0);
  CHECK(check_valid_time_ms("fact", 5, 4).message() ==
        "fact valid-from (1970-01-01T00:00:00.005Z) is after valid-to (1970-01-01T00:00:00.004Z)");
  // Positive controls: each open bound in its own place, and the supported extremes.
  CHECK(check_valid_time_ms("", kOpenPast, kOpenFuture).ok());
  CHECK(check_valid_time_ms("", kOpenPast, kMinTimeMs).ok());
  CHECK(check_valid_time_ms("", kMaxTimeMs, kOpenFuture).ok());
}

TEST_CASE("format_time_ms writes every int64 exactly, the extremes included", "[protocol]") {
  CHECK(format_time_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK(format_time_ms(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(format_time_ms(1795996800000 + 789) == "2026-11-30T00:00:00.789Z");
  CHECK(format_time_ms(kMaxTimeMs) == "9999-12-31T23:59:59.999Z");
  CHECK(format_time_ms(kMinTimeMs) == "0000-01-01T00:00:00.000Z");
  CHECK(format_time_ms(-62135596800000) == "0001-01-01T00:00:00.000Z");
  CHECK(format_time_ms(kOpenPast) == "open");
  CHECK(format_time_ms(kOpenFuture) == "open");
  // Outside the range a client may give, but possible in data: exact, never wrapped.
  CHECK(format_time_ms(kOpenFuture - 1) == "292278994-08-17T07:12:55.806Z");
  CHECK(format_time_ms(kOpenPast + 1) == "-292275055-05-16T16:47:04.193Z");
  // Every supported time prints as text that parses back to itself.
  for (int64_t ms : {kMinTimeMs, kMinTimeMs + 1, int64_t(-86400001), int64_t(-1), int64_t(0), int64_t(951782400000),
                     int64_t(4107542399999), kMaxTimeMs - 1, kMaxTimeMs}) {
    INFO(ms);
    CHECK(parse_time_ms(format_time_ms(ms)) == ms);
  }
}
