// A real Prometheus server (Debian's `prometheus` package) for tests: it scrapes the given
// targets on loopback as job "vasana" every `interval` (1 s unless given), evaluates a rule
// file when one is given (at the same interval), and answers queries through its HTTP API.
// Bounded: its process is killed when the object goes out of scope, and every wait has a deadline.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test {

// The full path of program found on PATH; "" when it is not there.
std::string on_path(const std::string& program);

class PrometheusServer {
 public:
  // Starts it with its files under tmp; ok() says whether it came up (why() says why not).
  PrometheusServer(const TempDir& tmp, const std::vector<std::string>& targets, const std::string& rule_file = "",
                   std::chrono::seconds interval = std::chrono::seconds(1));
  bool ok() const { return why_.empty(); }
  const std::string& why() const { return why_; }
  int port() const { return port_; }

  // /api/v1/query for expr: the "result" array, or null with *why set.
  nlohmann::json query(const std::string& expr, std::string* why) const;
  // Polls expr until it returns at least one series (and, when want is given, every series has
  // that value), at most timeout. "" on success, else the last answer and targets_health().
  std::string await_series(const std::string& expr, std::chrono::seconds timeout,
                           std::optional<double> want = std::nullopt) const;
  // The alerts pending or firing now (/api/v1/alerts): each {"labels", "state", ...}; null when
  // the server did not answer.
  nlohmann::json alerts() const;
  // Each scrape target's instance, health and last scrape error, on one line.
  std::string targets_health() const;

 private:
  int port_ = 0;
  std::string why_;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace vasana::test
