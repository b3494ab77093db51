#include "tests/cli/serve_process.hpp"

#include <thread>

#include "frontends/node_client.hpp"
#include "store/file_io.hpp"

namespace vasana::test {

std::string init_data_dir_with_cli(const std::string& dir, const std::string& scratch_dir) {
  auto r = run_vasana({"init", "--data", dir}, scratch_dir);
  if (r.status.exited && r.status.code == 0) return "";
  return "vasana init --data " + dir + " ended with " + r.status.describe() + ": " + r.err;
}

namespace {

std::vector<std::string> serve_args(const std::string& dir, const std::string& config,
                                    const std::vector<std::string>& prefix) {
  std::vector<std::string> a = prefix;
  for (const char* w : {VASANA_BINARY, "serve", "--data"}) a.push_back(w);
  a.push_back(dir);
  if (!config.empty()) {
    a.push_back("--config");
    a.push_back(config);
  }
  return a;
}

}  // namespace

ServeProcess::ServeProcess(const std::string& dir, const std::string& stderr_path, const std::string& config,
                           const std::vector<std::string>& prefix)
    : dir_(dir),
      stderr_path_(stderr_path),
      child_(prefix.empty() ? VASANA_BINARY : prefix[0], serve_args(dir, config, prefix), "", "", stderr_path) {}

std::string ServeProcess::stderr_text() const {
  auto r = read_whole_file(stderr_path_);
  return r.ok() ? r.value() : std::string();
}

std::string ServeProcess::wait_ready(std::chrono::milliseconds timeout) {
  if (child_.pid() < 0) return child_.error();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last = "client.endpoint never appeared";
  while (std::chrono::steady_clock::now() < deadline) {
    if (!child_.running()) {
      auto st = child_.wait(std::chrono::milliseconds(0));
      return "serve ended before it was ready (" + (st ? st->describe() : std::string("?")) + "): " + stderr_text();
    }
    auto ep = NodeClient::endpoint_of(dir_);
    if (ep.ok()) {
      auto client = NodeClient::connect(*ep);
      if (client.ok()) {
        ClientRequest ping;
        ping.kind = ClientRequest::Kind::ping;
        auto r = client.value()->call(ping, std::chrono::milliseconds(300));
        if (r.ok() && r->kind == ClientResponse::Kind::pong) return "";
        last = r.ok() ? "answered a ping with something other than a pong" : r.status().message();
      } else {
        last = client.status().message();
      }
    } else {
      last = ep.status().message();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "serve was not ready within " + std::to_string(timeout.count()) + " ms (" + last + "): " + stderr_text();
}

}  // namespace vasana::test
