// `vasana init` and `vasana serve`.
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <pthread.h>

#include "actors/node.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/malloc_tunables.hpp"
#include "cli/scoring_file.hpp"
#include "store/file_access.hpp"
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
  auto id = init_data_dir(DataDir{*dir}, VectorSpace{});
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
  opts.sync = cfg->sync;
  opts.metrics_listen = cfg->metrics_listen;
  if (opts.sync.network()) {
    auto keys = load_secret_key_file(cfg->secret_key_file);
    if (!keys.ok()) return fail(kExitUsage, "serve: sync.secret_key_file: " + keys.status().message());
    opts.sync.secret_key = keys->secret_z85;
  }
  log_line("malloc: " + malloc_tuning());
  auto node = Node::start(opts, log_line);
  if (!node.ok()) return fail(exit_code_for(node.status()), "serve: " + node.status().message());
  std::string extra;
  if (!node.value()->sync_endpoint().empty()) extra += "; peers on " + node.value()->sync_endpoint();
  if (node.value()->metrics_port() != 0)
    extra += "; metrics on http://127.0.0.1:" + std::to_string(node.value()->metrics_port()) + "/metrics";
  log_line("ready: writer " + to_hex(node.value()->instance()) + " serving " + opts.dir.root + extra);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  log_line(std::string("stopping on ") + (sig == SIGINT ? "SIGINT" : "SIGTERM"));
  node.value()->stop();
  log_line("stopped");
  return kExitOk;
}

}  // namespace vasana
