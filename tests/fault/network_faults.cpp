#include "tests/fault/network_faults.hpp"

#include <thread>

namespace vasana::test::fault {

std::vector<LinkProxy*> NetworkFaults::links_of(size_t n) const {
  std::vector<LinkProxy*> out;
  for (const auto& [key, proxy] : links_.links())
    if (key.first == n || key.second == n) out.push_back(proxy.get());
  return out;
}

uint64_t NetworkFaults::connections_of(size_t n) const {
  uint64_t total = 0;
  for (LinkProxy* p : links_of(n)) total += p->counters().connections;
  return total;
}

void NetworkFaults::close_window() {
  if (!window_open_) return;
  WireCorruption& w = corruptions_.back();
  w.renewed = connections_of(w.node) - w.connections_at;
  window_open_ = false;
}

std::string NetworkFaults::apply(const Fault& f) {
  const size_t n = f.node;
  const auto mine = links_of(n);
  if (mine.empty()) return "n" + std::to_string(n) + " has no proxied link";
  uint64_t corrupted_before = 0, refused_before = 0;
  for (LinkProxy* p : mine) {
    const LinkCounters c = p->counters();
    corrupted_before += c.corrupted[0] + c.corrupted[1];
    refused_before += c.refused;
  }
  WireCorruption wire{n, 0, connections_of(n), 0};
  switch (f.kind) {
    case FaultKind::partition:
      for (LinkProxy* p : mine) p->cut();
      break;
    case FaultKind::one_way: {
      // Link (i, j): i connects to j; to_client carries j's data to i. Node n's data reaches
      // peer j on link (j, n); what j serves n comes on link (n, j).
      const bool outgoing = f.pick % 2 == 0;
      for (const auto& [key, proxy] : links_.links())
        if ((outgoing && key.second == n) || (!outgoing && key.first == n)) proxy->blackhole(LinkDirection::to_client);
      log_(std::string("  n") + std::to_string(n) + (outgoing ? "'s data does not reach its peers" : " hears nothing from its peers"));
      break;
    }
    case FaultKind::link_delay: {
      const auto d = std::chrono::milliseconds(50 + f.pick % 351);
      for (LinkProxy* p : mine) p->delay(d);
      log_("  links of n" + std::to_string(n) + " delayed " + std::to_string(d.count()) + " ms");
      break;
    }
    case FaultKind::link_corrupt:
      for (LinkProxy* p : mine) p->corrupt(1.0 / 2000);
      break;
    default:
      return std::string(fault_name(f.kind)) + " is not a network fault";
  }
  std::this_thread::sleep_for(f.hold);
  const double lag_at_end = f.kind == FaultKind::partition && lag_of_ ? lag_of_(n) : -1;
  uint64_t corrupted_after = 0, refused_after = 0;
  for (LinkProxy* p : mine) {
    p->pass();
    const LinkCounters c = p->counters();
    corrupted_after += c.corrupted[0] + c.corrupted[1];
    refused_after += c.refused;
  }
  if (f.kind == FaultKind::partition) {
    cuts_.push_back(Cut{n, refused_after - refused_before, f.hold, lag_at_end});
    log_("  " + std::to_string(cuts_.back().refused) + " connections to or from n" + std::to_string(n) +
         " refused; its lag read " + std::to_string(lag_at_end) + " s before the heal");
  }
  if (f.kind == FaultKind::link_corrupt) {
    wire.corrupted = corrupted_after - corrupted_before;
    log_("  " + std::to_string(wire.corrupted) + " bytes flipped on the links of n" + std::to_string(n));
    corruptions_.push_back(wire);
    window_open_ = true;
  }
  return "";
}

}  // namespace vasana::test::fault
