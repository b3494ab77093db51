// `vasana init` and `vasana serve`.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <pthread.h>
#include <thread>

#include "actors/node.hpp"
#include "cli/cli_common.hpp"
#include "config/client_grants_config.hpp"
#include "frontends/http_server.hpp"
#include "config/owner_only_file.hpp"
#include "cli/commands.hpp"
#include "cli/malloc_tunables.hpp"
#include "config/scoring_file.hpp"
#include "cli/service_notify.hpp"
#include "store/file_access.hpp"
#include "store/file_io.hpp"
#include "sync/curve_keys.hpp"

namespace vasana {

namespace {

void log_line(const std::string& line) {
  std::time_t t = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  std::fprintf(stderr, "%s vasana: %s\n", stamp, line.c_str());
  std::fflush(stderr);
}

int exit_code_for(const Status& s) {
  return s.code() == Code::invalid_argument ? kExitUsage : kExitFailed;
}

// Waits for SIGINT or SIGTERM (blocked in every thread) on a thread of its own, from before the
// node starts until the process ends, so a stop signal is seen during the start too.
class StopSignals {
 public:
  explicit StopSignals(const sigset_t& set) : set_(set), thread_([this] { watch(); }) {}
  ~StopSignals() {
    // Wakes the watcher if no signal came: a signal sent to that thread alone ends its sigwait.
    if (!signalled()) pthread_kill(thread_.native_handle(), SIGTERM);
    thread_.join();
  }
  bool signalled() const { return signal_.load() != 0; }
  // The signal that came (SIGINT or SIGTERM), once one has.
  int wait() {
    std::unique_lock<std::mutex> g(mu_);
    cv_.wait(g, [this] { return signalled(); });
    return signal_.load();
  }

 private:
  void watch() {
    int sig = 0;
    if (sigwait(&set_, &sig) != 0) sig = SIGTERM;
    std::lock_guard<std::mutex> g(mu_);
    signal_.store(sig);
    cv_.notify_all();
  }

  sigset_t set_;
  std::atomic<int> signal_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;  // last: starts once the members above exist
};

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

}  // namespace

int cmd_init(const Words& words) {
  auto args = parse_args(words, {"data", "config"}, {});
  if (!args.ok()) return fail(kExitUsage, "init: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "init: unexpected argument '" + args->positional[0] + "'");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto dir = resolve_data_dir(*args, *cfg);
  if (!dir) return fail(kExitUsage, "init: --data DIR is required (or set VASANA_DATA)");
  set_file_access(cfg->group_access ? FileAccess::group : FileAccess::owner_only);
  // With an [embedding] provider the store's vectors are the provider model's; else the built-in embedder's.
  auto id = init_data_dir(DataDir{*dir}, cfg->embedding.enabled() ? cfg->embedding.space() : VectorSpace{});
  if (!id.ok()) return fail(kExitFailed, "init: " + id.status().message());
  std::printf("initialised %s: writer %s, vector space %s\n", dir->c_str(), to_hex(id->instance).c_str(),
              id->vector_space.id().c_str());
  return kExitOk;
}

int cmd_serve(const Words& words) {
  auto args = parse_args(words, {"data", "config"}, {});
  if (!args.ok()) return fail(kExitUsage, "serve: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "serve: unexpected argument '" + args->positional[0] + "'");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto dir = resolve_data_dir(*args, *cfg);
  if (!dir) return fail(kExitUsage, "serve: --data DIR is required (or set VASANA_DATA)");
  set_file_access(cfg->group_access ? FileAccess::group : FileAccess::owner_only);

  // Block the stop signals in every thread; this one waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A write to a peer that has gone (a TLS socket of the HTTP server or the embedding client,
  // which OpenSSL writes with write(2); a closed stderr) fails with EPIPE, never ends the node.
  std::signal(SIGPIPE, SIG_IGN);

  NodeOptions opts;
  std::error_code ec;
  auto abs = std::filesystem::absolute(*dir, ec);
  opts.dir = DataDir{ec ? *dir : abs.lexically_normal().string()};
  if (!cfg->client_tcp.empty()) {
    opts.client_endpoints = {opts.dir.default_client_endpoint(), cfg->client_tcp};
  }
  opts.log = cfg->log;
  opts.group_commit = cfg->group_commit;
  opts.limits = cfg->limits;
  opts.worker_threads = cfg->worker_threads;
  auto scoring = load_scoring(cfg->scoring_file);
  if (!scoring.ok()) return fail(kExitUsage, "serve: " + scoring.status().message());
  opts.scoring = *scoring;
  opts.semantic = cfg->semantic;
  opts.builtin_embedding = cfg->builtin_embedding;
  opts.hdc_lane = cfg->hdc_lane;
  opts.sync = cfg->sync;
  opts.metrics_listen = cfg->metrics_listen;
  opts.checkpoint = cfg->checkpoint;
  opts.write_policy = cfg->write_policy;
  opts.embedding = cfg->embedding;
  if (!cfg->embedding.api_key_file.empty()) {
    const std::string& f = cfg->embedding.api_key_file;
    const std::string who = "embedding.api_key_file " + f;
    if (Status k = check_owner_only_file(f, who); !k.ok()) return fail(kExitUsage, "serve: " + k.message());
    auto key = read_whole_file(f);
    if (!key.ok()) return fail(kExitUsage, "serve: " + who + ": " + key.status().message());
    std::string k = *key;
    while (!k.empty() && (k.back() == '\n' || k.back() == '\r' || k.back() == ' ')) k.pop_back();
    if (k.empty() || k.find_first_of(" \t\r\n") != std::string::npos)
      return fail(kExitUsage, "serve: " + who + ": the file must hold the key alone, on one line");
    opts.embedding.client.api_key = k;
  }
  if (opts.sync.network()) {
    auto keys = load_secret_key_file(cfg->secret_key_file);
    if (!keys.ok()) return fail(kExitUsage, "serve: sync.secret_key_file: " + keys.status().message());
    opts.sync.secret_key = keys->secret_z85;
  }
  Status tokens = load_client_tokens(cfg->clients);
  if (!tokens.ok()) return fail(kExitUsage, "serve: " + tokens.message());
  opts.clients = cfg->clients;
  const bool client_keys = std::any_of(opts.clients.all().begin(), opts.clients.all().end(),
                                       [](const ClientGrant& c) { return !c.public_key.empty(); });
  if (client_keys && !cfg->client_tcp.empty()) {
    // The TCP client endpoint is a CurveZMQ server with the node's own key pair.
    if (cfg->secret_key_file.empty())
      return fail(kExitUsage, "serve: clients with a public_key need the node's key pair for the TCP client endpoint: "
                              "set sync.secret_key_file (make one with `vasana keygen`)");
    auto keys = load_secret_key_file(cfg->secret_key_file);
    if (!keys.ok()) return fail(kExitUsage, "serve: sync.secret_key_file: " + keys.status().message());
    opts.client_secret_key = keys->secret_z85;
  }
  // The HTTP server needs a client that can use it, and a TLS key only its owner may read.
  if (cfg->http.enabled()) {
    bool any_token = false;
    for (const ClientGrant& g : cfg->clients.all()) any_token = any_token || !g.token.empty();
    if (!any_token)
      return fail(kExitUsage, "serve: http.listen is set but no [clients.\"NAME\"] table has a token_file: nobody could use the HTTP API");
    if (cfg->http.tls()) {
      Status k = check_owner_only_file(cfg->http.tls_key_file, "http.tls_key_file " + cfg->http.tls_key_file);
      if (!k.ok()) return fail(kExitUsage, "serve: " + k.message());
    }
  }
  log_line("malloc: " + malloc_tuning());
  StopSignals signals(stop_signals);
  opts.stop_requested = [&signals] { return signals.signalled(); };
  auto node = Node::start(opts, log_line);
  if (!node.ok()) {
    // A stop signal during the start ends it like a stop after it: in order, exit code 0.
    if (signals.signalled()) {
      log_line(std::string("stopped on ") + signal_name(signals.wait()) + " before the node was ready");
      return kExitOk;
    }
    return fail(exit_code_for(node.status()), "serve: " + node.status().message());
  }
  std::unique_ptr<HttpServer> http;
  if (cfg->http.enabled()) {
    HttpServerOptions ho;
    ho.http = cfg->http;
    ho.clients = cfg->clients;
    ho.node_endpoint = opts.dir.default_client_endpoint();
    ho.limits = cfg->limits;
    ho.probe = node.value()->probe();
    ho.log = log_line;
    auto started = HttpServer::start(std::move(ho));
    if (!started.ok()) {
      node.value()->stop();
      return fail(exit_code_for(started.status()), "serve: " + started.status().message());
    }
    http = std::move(started.value());
  }
  std::string extra;
  if (http) extra += "; http on " + http->url();
  if (!node.value()->sync_endpoint().empty()) extra += "; peers on " + node.value()->sync_endpoint();
  if (node.value()->metrics_port() != 0)
    extra += "; metrics on " + node.value()->metrics_url();
  log_line("ready: writer " + to_hex(node.value()->instance()) + " serving " + opts.dir.root + extra);
  // Under systemd (Type=notify) the unit counts as started from here; a failed notification
  // only costs that, so it is logged and the node serves on.
  if (Status n = notify_service_manager("READY=1\nSTATUS=serving " + opts.dir.root); !n.ok())
    log_line("could not tell the service manager that the node is ready: " + n.message());

  const int sig = signals.wait();
  log_line(std::string("stopping on ") + signal_name(sig));
  notify_service_manager("STOPPING=1");
  if (http) http->stop();
  node.value()->stop();
  log_line("stopped");
  return kExitOk;
}

}  // namespace vasana
