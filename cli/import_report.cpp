#include "cli/import_report.hpp"

#include <algorithm>

namespace vasana {

bool ImportReport::take(size_t line, const ClientResponse& r) {
  if (r.kind == ClientResponse::Kind::remembered) {
    (r.existed ? existed_ : written_)++;
    return true;
  }
  if (r.kind == ClientResponse::Kind::error && r.error == ClientError::conflict) {
    conflicts_.emplace_back(line, r.message);
    return true;
  }
  failure_ = "line " + std::to_string(line) + ": " +
             (r.kind == ClientResponse::Kind::error ? r.message : std::string("unexpected answer"));
  return false;
}

std::string ImportReport::summary(size_t bad_lines) const {
  std::string s = "imported " + std::to_string(written_) + " new, " + std::to_string(existed_) + " already present";
  if (!conflicts_.empty()) s += ", " + std::to_string(conflicts_.size()) + " refused as conflicts";
  return s + ", " + std::to_string(bad_lines) + " bad line(s) skipped";
}

std::vector<std::string> ImportReport::conflict_lines(size_t max) const {
  auto sorted = conflicts_;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < sorted.size() && i < max; ++i)
    out.push_back("line " + std::to_string(sorted[i].first) + ": " + sorted[i].second);
  if (sorted.size() > max) out.push_back("... and " + std::to_string(sorted.size() - max) + " more conflicting lines");
  return out;
}

}  // namespace vasana
