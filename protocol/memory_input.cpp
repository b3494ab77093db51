#include "protocol/memory_input.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

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

const std::vector<std::string_view>& memory_statuses() {
  static const std::vector<std::string_view> statuses = {"active",     "verified",     "observed", "proposed",
                                                         "superseded", "contradicted", "archived"};
  return statuses;
}

bool is_memory_status(std::string_view s) {
  const auto& ss = memory_statuses();
  return std::find(ss.begin(), ss.end(), s) != ss.end();
}

const std::vector<std::string_view>& epistemic_names() {
  static const std::vector<std::string_view> names = {"user_stated", "tool_derived", "model_inferred",
                                                      "autonomous_synthesis"};
  return names;
}

bool is_epistemic_name(std::string_view e) {
  const auto& es = epistemic_names();
  return std::find(es.begin(), es.end(), e) != es.end();
}

namespace {
std::string joined(const std::vector<std::string_view>& names) {
  std::string all;
  for (auto n : names) all += (all.empty() ? "" : ", ") + std::string(n);
  return all;
}
}  // namespace

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

Status check_text(std::string_view name, std::string_view v, size_t max, bool required) {
  if (required && v.empty()) return Status::InvalidArgument(std::string(name) + " is required and must not be empty");
  if (v.size() > max)
    return Status::InvalidArgument(std::string(name) + " is " + std::to_string(v.size()) +
                                   " bytes; the limit is " + std::to_string(max));
  if (!is_valid_utf8(v)) return Status::InvalidArgument(std::string(name) + " is not valid UTF-8");
  if (v.find('\0') != std::string_view::npos)
    return Status::InvalidArgument(std::string(name) + " contains a NUL byte");
  return Status::Ok();
}

namespace {

bool has_control_chars(std::string_view v) {
  return std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

// A name-like field (realm, ref, tag): check_text, and no control characters.
Status check_label(const char* name, std::string_view v, size_t max, bool required) {
  Status s = check_text(name, v, max, required);
  if (!s.ok()) return s;
  if (has_control_chars(v)) return Status::InvalidArgument(std::string(name) + " contains control characters");
  return Status::Ok();
}

}  // namespace

Status check_realm(std::string_view realm) { return check_label("realm", realm, kMaxRealmBytes, true); }

bool is_supported_time_ms(int64_t ms) { return ms >= kMinTimeMs && ms <= kMaxTimeMs; }

Status check_time_ms(std::string_view name, int64_t ms) {
  if (is_supported_time_ms(ms)) return Status::Ok();
  return Status::InvalidArgument(std::string(name) + " " + std::to_string(ms) +
                                 " ms is outside the supported times (epoch milliseconds " +
                                 std::to_string(kMinTimeMs) + " to " + std::to_string(kMaxTimeMs) +
                                 ", years 0000 to 9999)");
}

Status check_valid_time_ms(std::string_view what, int64_t from, int64_t to) {
  const std::string prefix = what.empty() ? std::string() : std::string(what) + " ";
  Status s = from == kOpenPast ? Status::Ok() : check_time_ms(prefix + "valid-from", from);
  if (s.ok()) s = to == kOpenFuture ? Status::Ok() : check_time_ms(prefix + "valid-to", to);
  if (s.ok() && from > to)
    s = Status::InvalidArgument(prefix + "valid-from (" + format_time_ms(from) + ") is after valid-to (" +
                                format_time_ms(to) + ")");
  return s;
}

Status validate_memory(const MemoryInput& m, const InputLimits& limits) {
  Status s = check_realm(m.realm);
  if (!s.ok()) return s;
  if (!is_memory_kind(m.kind)) {
    std::string all;
    for (auto k : memory_kinds()) all += (all.empty() ? "" : ", ") + std::string(k);
    return Status::InvalidArgument("unknown kind '" + m.kind + "'; kinds are: " + all);
  }
  s = check_text("text", m.text, limits.max_text_bytes, true);
  if (!s.ok()) return s;
  if (m.text.find_first_not_of(" \t\r\n") == std::string::npos)
    return Status::InvalidArgument("text is only white space");
  s = check_label("ref", m.ref, kMaxRefBytes, false);
  if (!s.ok()) return s;
  if (m.tags.size() > kMaxTags)
    return Status::InvalidArgument("too many tags: " + std::to_string(m.tags.size()) + "; the limit is " + std::to_string(kMaxTags));
  for (const auto& t : m.tags) {
    s = check_label("tag", t, kMaxTagBytes, true);
    if (!s.ok()) return s;
  }
  s = check_text("source session", m.source_session, kMaxSourceBytes, false);
  if (!s.ok()) return s;
  s = check_text("source tool", m.source_tool, kMaxSourceBytes, false);
  if (!s.ok()) return s;
  s = check_valid_time_ms("", m.valid_from_ms, m.valid_to_ms);
  if (!s.ok()) return s;
  if (!m.vector.empty() && limits.vector_dim != 0 && m.vector.size() != limits.vector_dim)
    return Status::InvalidArgument("vector has " + std::to_string(m.vector.size()) +
                                   " dimensions; this store's vector space has " + std::to_string(limits.vector_dim));
  if (m.vector.size() > kMaxVectorDim)
    return Status::InvalidArgument("vector has " + std::to_string(m.vector.size()) + " dimensions; the limit is " +
                                   std::to_string(kMaxVectorDim));
  for (float f : m.vector)
    if (!std::isfinite(f)) return Status::InvalidArgument("vector contains a value that is not a finite number");
  if (!is_memory_status(m.status))
    return Status::InvalidArgument("unknown status '" + m.status + "'; statuses are: " + joined(memory_statuses()));
  if (!is_epistemic_name(m.epistemic))
    return Status::InvalidArgument("unknown origin '" + m.epistemic + "'; origins are: " + joined(epistemic_names()));
  if (!(m.confidence >= 0.0f && m.confidence <= 1.0f))
    return Status::InvalidArgument("confidence " + std::to_string(m.confidence) + " is not between 0 and 1");
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
    if (parse_int(s, plain) && is_supported_time_ms(plain)) return plain;
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
  // Floor division throughout: no negation or addition that could overflow an int64.
  int64_t secs = ms / 1000, frac = ms % 1000;
  if (frac < 0) {
    frac += 1000;
    --secs;
  }
  int64_t days = secs / 86400, sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  // civil_from_days (H. Hinnant); |days| <= 1.1e11, so nothing below overflows.
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t mo = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (mo <= 2);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", y < 0 ? "-" : "",
                static_cast<long long>(y < 0 ? -y : y), static_cast<int>(mo), static_cast<int>(d),
                static_cast<int>(sod / 3600), static_cast<int>(sod / 60 % 60), static_cast<int>(sod % 60),
                static_cast<int>(frac));
  return buf;
}

}  // namespace vasana
