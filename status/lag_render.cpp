#include "status/lag_render.hpp"

#include <cmath>
#include <cstdio>

namespace vasana {

using json = nlohmann::ordered_json;

std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "? s";
  char buf[64];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.2f s" : s < 100 ? "%.1f s" : "%.0f s", s);
  return buf;
}

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string writer_lags_text(const std::vector<WriterLag>& lags) {
  if (lags.empty()) return "  no writer advertised by a peer\n";
  std::string out;
  for (const WriterLag& l : lags)
    out += "  " + l.writer + ": " + std::to_string(l.lag_ops) + " ops, " + seconds_text(l.lag_seconds) +
           " since caught up (highest known " + std::to_string(l.peer_seqno) + ", applied " +
           std::to_string(l.applied_seqno) + ")\n";
  return out;
}

json writer_lags_json(const std::vector<WriterLag>& lags) {
  json out = json::array();
  for (const WriterLag& l : lags)
    out.push_back({{"writer", l.writer},
                   {"known_seqno", l.peer_seqno},
                   {"applied_seqno", l.applied_seqno},
                   {"lag_ops", l.lag_ops},
                   {"lag_seconds", number_or_null(l.lag_seconds)}});
  return out;
}

}  // namespace vasana
