#include "tests/fault/alert_rules.hpp"

#include <fstream>
#include <sstream>

namespace vasana::test {

std::string scaled_alert_rules() {
  std::ifstream f(std::string(VASANA_SOURCE_DIR) + "/ops/prometheus/alerts.yml");
  std::stringstream text;
  text << f.rdbuf();
  std::string rules = text.str();
  auto replace_all = [&rules](const std::string& from, const std::string& to) {
    size_t n = 0;
    for (size_t at = rules.find(from); at != std::string::npos; at = rules.find(from, at + to.size()), ++n)
      rules.replace(at, from.size(), to);
    return n;
  };
  if (replace_all("(vasana_writer_lag_seconds) > 60", "(vasana_writer_lag_seconds) > 3") != 1) return "";
  for (const char* d : {"for: 2m", "for: 1m", "for: 15s", "for: 1h"}) replace_all(d, "for: 3s");
  return rules;
}

std::vector<std::pair<std::string, std::string>> firing_alerts(const PrometheusServer& prom) {
  std::vector<std::pair<std::string, std::string>> out;
  const nlohmann::json alerts = prom.alerts();
  if (!alerts.is_array()) return out;
  for (const nlohmann::json& a : alerts)
    if (a.value("state", "") == "firing")
      out.emplace_back(a["labels"].value("alertname", ""), a["labels"].value("instance", ""));
  return out;
}

}  // namespace vasana::test
