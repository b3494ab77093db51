#include "tests/cli/prometheus_server.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "frontends/loopback_port.hpp"
#include "tests/cli/http_get.hpp"

namespace vasana::test {

using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// The body of an HTTP response ("" when there is none).
std::string body_of(const std::string& response) {
  const size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

// The "data" of a successful API answer at path, or null with *why set.
json api(int port, const std::string& path, std::string* why) {
  const std::string body = body_of(http_get(port, path));
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    *why = "no JSON answer: " + body;
    return nullptr;
  }
  if (j.value("status", "") != "success") {
    *why = "query failed: " + body;
    return nullptr;
  }
  *why = "";
  return j["data"];
}

}  // namespace

std::string on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

PrometheusServer::PrometheusServer(const TempDir& tmp, const std::vector<std::string>& targets,
                                   const std::string& rule_file, std::chrono::seconds interval) {
  const std::string prometheus = on_path("prometheus");
  if (prometheus.empty()) {
    why_ = "no prometheus binary on PATH (Debian package prometheus, installed by ops/install-deps.sh)";
    return;
  }
  port_ = free_loopback_port();
  const std::string config = tmp.sub("prometheus.yml");
  {
    std::string list;
    for (const std::string& t : targets) list += std::string(list.empty() ? "" : ", ") + "'" + t + "'";
    std::ofstream f(config);
    const std::string every = std::to_string(interval.count()) + "s";
    f << "global:\n  scrape_interval: " << every << "\n  evaluation_interval: " << every << "\n";
    if (!rule_file.empty()) f << "rule_files:\n  - '" << rule_file << "'\n";
    f << "scrape_configs:\n  - job_name: vasana\n    static_configs:\n      - targets: [" << list << "]\n";
  }
  process_ = std::make_unique<ChildProcess>(
      prometheus,
      std::vector<std::string>{prometheus, "--config.file=" + config, "--storage.tsdb.path=" + tmp.sub("tsdb"),
                               "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=warn"},
      "", tmp.sub("prometheus.out"), tmp.sub("prometheus.err"));
  if (process_->pid() <= 0) {
    why_ = "prometheus did not start";
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline &&
         http_get(port_, "/-/ready").find("200 OK") == std::string::npos)
    std::this_thread::sleep_for(200ms);
  if (http_get(port_, "/-/ready").find("200 OK") == std::string::npos) why_ = "prometheus not ready within 30 s";
}

json PrometheusServer::query(const std::string& expr, std::string* why) const {
  const json data = api(port_, "/api/v1/query?query=" + url_encode(expr), why);
  return data.is_null() ? json(nullptr) : data["result"];
}

std::string PrometheusServer::await_series(const std::string& expr, std::chrono::seconds timeout,
                                           std::optional<double> want) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string why;
    const json result = query(expr, &why);
    if (result.is_array() && !result.empty()) {
      bool all = true;
      for (const json& series : result) {
        if (want && std::stod(series["value"][1].get<std::string>()) != *want) all = false;
      }
      if (all) return "";
      last = result.dump();
    } else {
      last = why.empty() ? "empty result" : why;
    }
    std::this_thread::sleep_for(500ms);
  }
  return expr + ": " + last + "; targets: " + targets_health();
}

std::string PrometheusServer::targets_health() const {
  std::string why;
  const json data = api(port_, "/api/v1/targets", &why);
  if (data.is_null() || !data["activeTargets"].is_array()) return why;
  std::string out;
  for (const json& t : data["activeTargets"]) {
    out += (out.empty() ? "" : ", ") + t["labels"].value("instance", "?") + " " + t.value("health", "?");
    const std::string error = t.value("lastError", "");
    if (!error.empty()) out += " (" + error + ")";
  }
  return out;
}

json PrometheusServer::alerts() const {
  std::string why;
  const json data = api(port_, "/api/v1/alerts", &why);
  return data.is_null() ? json(nullptr) : data["alerts"];
}

}  // namespace vasana::test
