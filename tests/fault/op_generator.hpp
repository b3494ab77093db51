// The clients of a fault run: threads that write every op type a client can write (remember,
// update, forget, erase (in every other 4-s window), archive, restore, pin, unpin, fact, retract,
// correct, review) to random nodes
// through the client protocol (frontends/node_client.hpp, the path the CLI takes), each op recorded
// in the History with how it ended. Each thread draws its choices from its own generator
// seeded from the run's seed; the targets of later ops are the memories and triplets the
// clients got acknowledged so far.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/fault/op_history.hpp"

namespace vasana::test::fault {

// Erasures are written in every other window of this length, from the start (op_generator.cpp).
inline constexpr int64_t kErasureWindowMs = 4000;

// The realms the workload writes: "alpha" and "beta".
const std::vector<std::string>& workload_realms();

class OpGenerator {
 public:
  // data_dirs: the nodes' data directories (a node's client endpoint is read from there at
  // each connect, so a restarted node is found again).
  OpGenerator(std::vector<std::string> data_dirs, History& history, uint64_t seed, size_t clients);
  ~OpGenerator();  // stops and joins

  void start();
  void stop();  // the threads finish the op in flight and end
  // After stop(): removes every member key the workload may have admitted, through the first
  // node that answers, each as a remove op of the history. An operator removes a member that
  // will never run; a node repairing its own stream waits for every member it has not heard
  // from, so one admitted at an address where nothing listens would hold it forever.
  void remove_members();

  // Acknowledged ops so far (any kind), for progress lines.
  size_t acked() const { return acked_.load(); }

 private:
  void client_loop(size_t client);
  int64_t now_ms() const;

  std::vector<std::string> data_dirs_;
  History& history_;
  uint64_t seed_;
  size_t clients_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> acked_{0};
  std::atomic<uint64_t> next_token_{1};
  std::vector<std::thread> threads_;

  // Acknowledged memories (and which were held for review) and triplets: targets for later ops.
  std::mutex mu_;
  std::vector<MemoryId> memories_, proposed_, triplets_;
  std::set<MemoryId> erased_;  // acknowledged erasures' targets
  // Keys of no node, admitted and removed by the workload: membership converges like every op,
  // and an admitted one at a port nothing listens on only adds a session that stays down.
  std::vector<std::string> member_keys_;
};

}  // namespace vasana::test::fault
