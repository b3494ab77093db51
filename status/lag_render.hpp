// How status and cluster views render lag figures, in text and JSON, so that `vasana status`
// and `vasana cluster` say the same thing the same way. Internal to status/ (it names
// nlohmann::ordered_json, a private dependency of vasana_status).
//
// Threading: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sync/writer_lags.hpp"

namespace vasana {

// Seconds for a reader: "0.25 s", "42.5 s", "3600 s"; "? s" when not finite.
std::string seconds_text(double s);
// A JSON number, or null when v is not finite (JSON has no infinity).
nlohmann::ordered_json number_or_null(double v);
// One indented line per writer ("  WRITER: N ops, S since caught up (highest known K, applied A)"),
// or a line saying no peer advertised a writer.
std::string writer_lags_text(const std::vector<WriterLag>& lags);
// [{writer, known_seqno, applied_seqno, lag_ops, lag_seconds}, ...]
nlohmann::ordered_json writer_lags_json(const std::vector<WriterLag>& lags);

}  // namespace vasana
