// `vasana bench write`: durable, acknowledged writes per second and acknowledgement latency
// with 1, 8 and 64 concurrent writers, next to the physical limits of the same disk measured in
// the same run (raw fdatasync rate and latency, sequential write bandwidth), with the ratios.
// Prints figures; asserts nothing (machines here are shared and noisy).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "actors/node.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/node_client.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration secs(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

struct SyncFigures {
  double rate = 0, p50_us = 0, p99_us = 0;
};

// Appends 128 bytes and fdatasyncs, again and again: the most a one-record-per-sync log could do.
SyncFigures measure_fdatasync(const std::string& dir, double seconds) {
  std::string path = dir + "/fdatasync.probe";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  SyncFigures f;
  if (fd < 0) return f;
  char buf[128] = {1};
  std::vector<double> lat;
  auto start = Clock::now(), end = start + secs(seconds);
  while (Clock::now() < end) {
    auto t0 = Clock::now();
    if (::write(fd, buf, sizeof buf) != sizeof buf || ::fdatasync(fd) != 0) break;
    lat.push_back(micros(Clock::now() - t0));
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  ::close(fd);
  ::unlink(path.c_str());
  f.rate = lat.size() / elapsed;
  f.p50_us = percentile(lat, 0.50);
  f.p99_us = percentile(lat, 0.99);
  return f;
}

// Writes bytes in 1 MiB blocks and fdatasyncs once: MiB/s the disk takes sequentially.
double measure_bandwidth(const std::string& dir, size_t bytes) {
  std::string path = dir + "/bandwidth.probe";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 0;
  std::vector<char> block(1 << 20, 'v');
  auto t0 = Clock::now();
  size_t done = 0;
  while (done < bytes && ::write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size())) done += block.size();
  ::fdatasync(fd);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(fd);
  ::unlink(path.c_str());
  return done / (1024.0 * 1024.0) / s;
}

struct WriteFigures {
  size_t writers = 0;
  double rate = 0, p50_us = 0, p99_us = 0, batch = 0;
  size_t errors = 0;
};

// writes: remember requests; otherwise pings, which take the same path through the client
// endpoint and the writer's thread but never touch the disk (the node's request ceiling).
WriteFigures measure_writes(const std::string& root, size_t writers, double seconds, bool writes) {
  WriteFigures f;
  f.writers = writers;
  DataDir dir{root + "/node-" + std::to_string(writers) + (writes ? "-w" : "-p")};
  auto id = init_data_dir(dir, VectorSpace{});
  if (!id.ok()) {
    std::fprintf(stderr, "bench: %s\n", id.status().message().c_str());
    return f;
  }
  NodeOptions opts;
  opts.dir = dir;
  auto node = Node::start(opts, nullptr);
  if (!node.ok()) {
    std::fprintf(stderr, "bench: %s\n", node.status().message().c_str());
    return f;
  }
  const std::string ep = node.value()->endpoints().front();
  // Each writer is a client socket with at most one request in flight: it sends its next write
  // only after the previous one was acknowledged. One thread drives them all with zmq_poll, so
  // the benchmark's own CPU use stays small next to the node's on a 2-core machine.
  zmq::context_t ctx(1);
  std::vector<std::unique_ptr<NodeClient>> clients;
  for (size_t w = 0; w < writers; ++w) {
    auto c = NodeClient::connect(ep, &ctx);
    if (!c.ok()) {
      std::fprintf(stderr, "bench: %s\n", c.status().message().c_str());
      return f;
    }
    clients.push_back(std::move(c.value()));
  }
  ClientRequest req;
  req.kind = writes ? ClientRequest::Kind::remember : ClientRequest::Kind::ping;
  req.memory.realm = "bench";
  req.memory.kind = "episode";
  req.memory.text =
      "observed that the deployment pipeline retries flaky integration tests twice before failing the build, "
      "and that the retry budget is configured per repository.";
  std::vector<double> all;
  std::vector<Clock::time_point> sent(writers);
  std::vector<zmq::pollitem_t> items;
  for (auto& c : clients) items.push_back({c->socket_handle(), 0, ZMQ_POLLIN, 0});
  size_t errors = 0, in_flight = 0;
  auto start = Clock::now(), end_time = start + secs(seconds);
  for (size_t w = 0; w < writers; ++w) {
    sent[w] = Clock::now();
    if (clients[w]->send(req).ok()) ++in_flight;
  }
  while (in_flight > 0) {
    zmq::poll(items.data(), items.size(), std::chrono::milliseconds(1000));
    auto now = Clock::now();
    for (size_t w = 0; w < writers; ++w) {
      if (!(items[w].revents & ZMQ_POLLIN)) continue;
      auto r = clients[w]->receive(std::chrono::milliseconds(0));
      --in_flight;
      if (r.ok() && r->kind == (writes ? ClientResponse::Kind::remembered : ClientResponse::Kind::pong))
        all.push_back(micros(now - sent[w]));
      else
        ++errors;
      if (now < end_time) {
        sent[w] = Clock::now();
        if (clients[w]->send(req).ok()) ++in_flight;
      }
    }
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();

  auto client = NodeClient::connect(ep);
  if (client.ok()) {
    ClientRequest ping;
    auto r = client.value()->call(ping, std::chrono::seconds(5));
    if (r.ok() && r->kind == ClientResponse::Kind::pong && r->info.flushes)
      f.batch = double(r->info.flushed_records) / double(r->info.flushes);
  }
  node.value()->stop();
  f.rate = all.size() / elapsed;
  f.p50_us = percentile(all, 0.50);
  f.p99_us = percentile(all, 0.99);
  f.errors = errors;
  return f;
}

}  // namespace

int cmd_bench(const Words& words) {
  if (words.empty() || words[0] != "write")
    return fail(kExitUsage, "bench: usage: vasana bench write [--dir DIR] [--seconds S] [--writers 1,8,64]");
  auto args = parse_args(Words(words.begin() + 1, words.end()), {"dir", "seconds", "writers"}, {"keep"});
  if (!args.ok()) return fail(kExitUsage, "bench: " + args.status().message());
  double seconds = 5;
  if (auto s = args->get("seconds")) {
    seconds = std::atof(s->c_str());
    if (seconds <= 0 || seconds > 3600) return fail(kExitUsage, "bench: --seconds must be from 0 to 3600");
  }
  std::vector<size_t> counts = {1, 8, 64};
  if (auto w = args->get("writers")) {
    counts.clear();
    size_t pos = 0;
    while (pos <= w->size()) {
      size_t comma = w->find(',', pos);
      std::string part = w->substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      long n = std::atol(part.c_str());
      if (n <= 0 || n > 1024) return fail(kExitUsage, "bench: --writers takes counts from 1 to 1024, e.g. 1,8,64");
      counts.push_back(static_cast<size_t>(n));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  std::string parent = args->get("dir").value_or(".");
  std::string tmpl = parent + "/vasana-bench-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return fail(kExitFailed, "bench: cannot create a directory in " + parent);
  std::string root = std::filesystem::absolute(buf.data()).string();

  std::printf("vasana bench write: %s, %.1f s per phase\n\n", root.c_str(), seconds);
  std::printf("physical limits of this disk\n");
  std::fflush(stdout);
  SyncFigures sync = measure_fdatasync(root, seconds);
  std::printf("  fdatasync (128-byte append + fdatasync): %.0f/s, p50 %.0f us, p99 %.0f us\n", sync.rate, sync.p50_us,
              sync.p99_us);
  std::fflush(stdout);
  double mibs = measure_bandwidth(root, 256u << 20);
  std::printf("  sequential write (256 MiB, 1 MiB blocks, one fdatasync): %.0f MiB/s\n\n", mibs);
  std::printf("durable acknowledged writes (remember over the IPC client endpoint; each writer is a socket\n"
              "that sends its next write only after the previous one was acknowledged)\n");
  std::printf("  %8s %12s %10s %10s %12s %8s\n", "writers", "writes/s", "p50 us", "p99 us", "ops/fsync", "errors");
  std::fflush(stdout);
  std::vector<WriteFigures> results;
  for (size_t n : counts) {
    WriteFigures f = measure_writes(root, n, seconds, true);
    results.push_back(f);
    std::printf("  %8zu %12.0f %10.0f %10.0f %12.1f %8zu\n", f.writers, f.rate, f.p50_us, f.p99_us, f.batch, f.errors);
    std::fflush(stdout);
  }
  std::printf("\nrequest ceiling without the disk (ping: same client endpoint and writer thread, no fdatasync)\n");
  std::printf("  %8s %12s %10s %10s\n", "writers", "pings/s", "p50 us", "p99 us");
  std::vector<WriteFigures> pings;
  for (size_t n : counts) {
    WriteFigures f = measure_writes(root, n, seconds, false);
    pings.push_back(f);
    std::printf("  %8zu %12.0f %10.0f %10.0f\n", f.writers, f.rate, f.p50_us, f.p99_us);
    std::fflush(stdout);
  }
  std::printf("\nratios (targets in parentheses)\n");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& f = results[i];
    std::printf("  %zu writers: %.1fx the raw fdatasync rate", f.writers, sync.rate > 0 ? f.rate / sync.rate : 0);
    if (f.writers == 64) std::printf(" (target >= 10x)");
    std::printf(", %.2f of the ping ceiling", pings[i].rate > 0 ? f.rate / pings[i].rate : 0);
    std::printf("; p99 ack latency %.2fx the median fdatasync", sync.p50_us > 0 ? f.p99_us / sync.p50_us : 0);
    if (f.writers == 1) std::printf(" (target <= 3x)");
    std::printf("\n");
  }
  if (!args->has("keep")) std::filesystem::remove_all(root);
  return kExitOk;
}

}  // namespace vasana
