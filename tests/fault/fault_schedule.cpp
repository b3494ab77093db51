#include "tests/fault/fault_schedule.hpp"

#include <random>

namespace vasana::test::fault {

const char* fault_name(FaultKind k) {
  switch (k) {
    case FaultKind::kill_restart: return "kill-restart";
    case FaultKind::pause: return "pause";
    case FaultKind::disk_full: return "disk-full";
    case FaultKind::clock_skew: return "clock-skew";
    case FaultKind::corrupt_disk: return "corrupt-disk";
    case FaultKind::partition: return "partition";
    case FaultKind::one_way: return "one-way";
    case FaultKind::link_delay: return "link-delay";
    case FaultKind::link_corrupt: return "link-corrupt";
  }
  return "?";
}

bool is_network_fault(FaultKind k) {
  return k == FaultKind::partition || k == FaultKind::one_way || k == FaultKind::link_delay ||
         k == FaultKind::link_corrupt;
}

std::string Fault::describe() const {
  std::string s = std::string(fault_name(kind)) + " n" + std::to_string(node) + " at " +
                  std::to_string(at.count()) + "ms for " + std::to_string(hold.count()) + "ms";
  if (kind == FaultKind::clock_skew) s += " skew " + std::to_string(skew_s) + "s";
  if (kind == FaultKind::corrupt_disk || kind == FaultKind::one_way || kind == FaultKind::link_delay)
    s += " pick " + std::to_string(pick);
  return s;
}

std::vector<Fault> make_schedule(uint64_t seed, const ScheduleOptions& o) {
  // Its own generator, derived from the seed: the workload's choices do not shift it.
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<FaultKind> kinds = {FaultKind::kill_restart, FaultKind::kill_restart, FaultKind::pause,
                                  FaultKind::clock_skew, FaultKind::corrupt_disk};
  if (o.disk_node < o.nodes) kinds.push_back(FaultKind::disk_full);
  if (o.network_faults) {
    kinds.push_back(FaultKind::partition);
    kinds.push_back(FaultKind::one_way);
    kinds.push_back(FaultKind::link_delay);
    kinds.push_back(FaultKind::link_corrupt);
  }
  // Skews within the default bound of 60 s ahead (ops beyond it are held, by design, until the
  // other clocks catch up) and any amount behind.
  const int64_t skews[] = {-7200, -90, -5, 3, 20, 45};
  std::vector<Fault> out;
  auto t = std::chrono::milliseconds(1000 + rng() % 1500);
  const auto end = o.duration - std::chrono::milliseconds(1000);
  while (true) {
    Fault f;
    f.kind = kinds[rng() % kinds.size()];
    f.node = f.kind == FaultKind::disk_full ? o.disk_node : rng() % o.nodes;
    f.at = t;
    f.hold = std::chrono::milliseconds(1000 + rng() % 5000);
    f.skew_s = skews[rng() % (sizeof(skews) / sizeof(skews[0]))];
    f.pick = rng();
    if (f.at + f.hold > end) break;
    out.push_back(f);
    t = f.at + f.hold + std::chrono::milliseconds(500 + rng() % 2500);
  }
  return out;
}

}  // namespace vasana::test::fault
