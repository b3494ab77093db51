// A TCP proxy on loopback that stands in for one directed peer link i->j, so that tests can
// break the network between `vasana serve` processes: node i's configuration names the proxy's
// endpoint as the address of peer j, and the proxy forwards every connection to node j's peer
// endpoint. The real peer protocol (ZMTP with CurveZMQ) runs through it; the proxy only sees
// bytes.
//
// Directions: "to_server" are the bytes node i (the DEALER, which connects) sends to node j (the
// ROUTER, which listens): hello, fetch, ack. "to_client" are the bytes j sends back: hello,
// advert, chunk (fetched and pushed). All of j's data reaches i through this link; i's data
// reaches j through the other proxy, j->i.
//
// Faults (each call replaces the previous setting of the same kind; pass() clears them all):
//   cut()          closes every connection (with a reset) and refuses new ones (accepted, then
//                  reset at once) until pass(): a partition of this link.
//   blackhole(d)   keeps connections open but reads and discards every byte going direction d
//                  (a one-way link). Bytes discarded mid-stream leave that TCP stream out of
//                  step for the receiver once the hole is lifted: its ZMTP/CURVE layer must
//                  notice and drop the connection. Replaces any earlier blackhole.
//   delay(ms)      holds every byte ms milliseconds before forwarding it (both directions,
//                  order kept).
//   corrupt(p)     flips each forwarded byte with probability p (XOR with a random non-zero
//                  value), drawn from the seeded generator: p = 0 turns it off.
// A setting takes effect for every byte read after the call returns; cut() has closed every
// connection when it returns.
//
// Counters (per direction): bytes forwarded (written to the other side), bytes dropped (by a
// blackhole, or queued in a connection that cut() closed), bytes corrupted; connections
// accepted and refused.
//
// Threading: start() spawns one thread that owns every socket of this proxy (poll loop); every
// public method may be called from any thread. The destructor stops the thread and closes all.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace vasana::test {

enum class LinkDirection { to_server = 0, to_client = 1 };

struct LinkCounters {
  std::array<uint64_t, 2> forwarded{};  // indexed by LinkDirection
  std::array<uint64_t, 2> dropped{};
  std::array<uint64_t, 2> corrupted{};
  uint64_t connections = 0;  // accepted and forwarded
  uint64_t refused = 0;      // accepted while cut, reset at once
  uint64_t forwarded_total() const { return forwarded[0] + forwarded[1]; }
};

class LinkProxy {
 public:
  // Listens on a free port of 127.0.0.1 and forwards to target ("tcp://127.0.0.1:PORT" or
  // "127.0.0.1:PORT"; IPv4 only). seed drives corrupt(). Throws std::runtime_error when the
  // target does not parse or no socket can be bound.
  LinkProxy(const std::string& target, uint64_t seed);
  ~LinkProxy();
  LinkProxy(const LinkProxy&) = delete;
  LinkProxy& operator=(const LinkProxy&) = delete;

  // "tcp://127.0.0.1:PORT": the address to configure as the peer's.
  const std::string& endpoint() const { return endpoint_; }
  const std::string& target() const { return target_; }

  void pass();
  void cut();
  void blackhole(LinkDirection d);
  void delay(std::chrono::milliseconds d);
  void corrupt(double probability);

  LinkCounters counters() const;
  // Connections open now.
  size_t open_connections() const;

  struct Impl;

 private:
  std::string target_;
  std::string endpoint_;
  std::unique_ptr<Impl> impl_;
};

// "forwarded 1234/567 B, dropped 0/0, corrupted 0/0, 2 connections, 0 refused" (to_server/to_client).
std::string describe(const LinkCounters& c);

}  // namespace vasana::test
