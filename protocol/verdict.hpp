// The word a recall answers with about whether the named realms hold an answer to the query:
// KNOWN or UNKNOWN when its calibrated probability (top_relevance) is clear of the scoring
// file's known_threshold by at least unsure_band, UNSURE when it is within that band (the
// evidence cannot tell; replica/verdict.hpp). Shared by the recall engine, the client protocol
// and every front end.
#pragma once

#include <cstdint>

namespace vasana {

enum class Verdict : uint8_t { unknown, known, unsure };

inline const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::known: return "KNOWN";
    case Verdict::unsure: return "UNSURE";
    case Verdict::unknown: break;
  }
  return "UNKNOWN";
}

}  // namespace vasana
