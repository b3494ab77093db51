#include "protocol/memory_input.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace vasana {

const std::vector<std::string_view>& memory_kinds() {
  static const std::vector<std::string_view> kinds = {
      "correction", "preference", "wisdom", "insight", "operational", "episode"};
  return kinds;
}

bool is_memory_kind(std::string_view k) {
  const auto& ks = memory_kinds();
  return std::find(ks.begin(), ks.end(), k) != ks.end();
}

bool is_valid_utf8(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) { ++i; continue; }
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return false;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

namespace {

Status check_text_field(const char* name, std::string_view v, size_t max, bool required) {
  if (required && v.empty()) return Status::InvalidArgument(std::string(name) + " is required and must not be empty");
  if (v.size() > max)
    return Status::InvalidArgument(std::string(name) + " is " + std::to_string(v.size()) +
                                   " bytes; the limit is " + std::to_string(max));
  if (!is_valid_utf8(v)) return Status::InvalidArgument(std::string(name) + " is not valid UTF-8");
  return Status::Ok();
}

bool has_control_chars(std::string_view v) {
  return std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

}  // namespace

Status validate_memory(const MemoryInput& m, const InputLimits& limits) {
  Status s = check_text_field("realm", m.realm, kMaxRealmBytes, true);
  if (!s.ok()) return s;
  if (has_control_chars(m.realm)) return Status::InvalidArgument("realm contains control characters");
  if (!is_memory_kind(m.kind)) {
    std::string all;
    for (auto k : memory_kinds()) all += (all.empty() ? "" : ", ") + std::string(k);
    return Status::InvalidArgument("unknown kind '" + m.kind + "'; kinds are: " + all);
  }
  s = check_text_field("text", m.text, limits.max_text_bytes, true);
  if (!s.ok()) return s;
  if (m.text.find_first_not_of(" \t\r\n") == std::string::npos)
    return Status::InvalidArgument("text is only white space");
  s = check_text_field("ref", m.ref, kMaxRefBytes, false);
  if (!s.ok()) return s;
  if (m.tags.size() > kMaxTags)
    return Status::InvalidArgument("too many tags: " + std::to_string(m.tags.size()) + "; the limit is " + std::to_string(kMaxTags));
  for (const auto& t : m.tags) {
    s = check_text_field("tag", t, kMaxTagBytes, true);
    if (!s.ok()) return s;
  }
  s = check_text_field("source session", m.source_session, kMaxSourceBytes, false);
  if (!s.ok()) return s;
  s = check_text_field("source tool", m.source_tool, kMaxSourceBytes, false);
  if (!s.ok()) return s;
  if (m.valid_from_ms > m.valid_to_ms)
    return Status::InvalidArgument("valid-from (" + format_time_ms(m.valid_from_ms) + ") is after valid-to (" +
                                   format_time_ms(m.valid_to_ms) + ")");
  if (!m.vector.empty() && limits.vector_dim != 0 && m.vector.size() != limits.vector_dim)
    return Status::InvalidArgument("vector has " + std::to_string(m.vector.size()) +
                                   " dimensions; this store's vector space has " + std::to_string(limits.vector_dim));
  if (m.vector.size() > kMaxVectorDim)
    return Status::InvalidArgument("vector has " + std::to_string(m.vector.size()) + " dimensions; the limit is " +
                                   std::to_string(kMaxVectorDim));
  for (float f : m.vector)
    if (!std::isfinite(f)) return Status::InvalidArgument("vector contains a value that is not a finite number");
  return Status::Ok();
}

namespace {

bool parse_int(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

std::optional<int64_t> parse_time_ms(std::string_view s) {
  int64_t plain;
  if (!s.empty() && s.find_first_not_of("0123456789", s[0] == '-' ? 1 : 0) == std::string_view::npos) {
    if (parse_int(s, plain)) return plain;
    return std::nullopt;
  }
  // YYYY-MM-DD[THH:MM:SS[.fff]Z]
  if (s.size() < 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  int64_t y, mo, d, h = 0, mi = 0, se = 0, ms = 0;
  if (!parse_int(s.substr(0, 4), y) || !parse_int(s.substr(5, 2), mo) || !parse_int(s.substr(8, 2), d))
    return std::nullopt;
  if (s.size() > 10) {
    if (s.size() < 20 || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' || s.back() != 'Z')
      return std::nullopt;
    if (!parse_int(s.substr(11, 2), h) || !parse_int(s.substr(14, 2), mi) || !parse_int(s.substr(17, 2), se))
      return std::nullopt;
    auto frac = s.substr(19, s.size() - 20);
    if (!frac.empty()) {
      if (frac[0] != '.' || frac.size() != 4 || frac.find_first_not_of("0123456789", 1) != std::string_view::npos ||
          !parse_int(frac.substr(1), ms))
        return std::nullopt;
    }
  }
  static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60 || h < 0 || mi < 0 || se < 0)
    return std::nullopt;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo == 2 && d == 29 && !leap) return std::nullopt;
  int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60000 + se * 1000 + ms;
}

std::string format_time_ms(int64_t ms) {
  if (ms == kOpenPast || ms == kOpenFuture) return "open";
  int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  int64_t frac = ms - secs * 1000;
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(frac));
  return buf;
}

}  // namespace vasana
