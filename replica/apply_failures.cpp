#include "replica/apply_failures.hpp"

namespace vasana {

bool ApplyFailures::record(InstanceId writer, Seqno seqno, const Status& why) {
  std::lock_guard<std::mutex> g(mutex_);
  auto [it, fresh] = by_writer_.try_emplace(writer, Stuck{writer, seqno, why.to_string(), 0});
  Stuck& s = it->second;
  if (!fresh && seqno < s.seqno) {  // an earlier op failed (a replay after a repair): it is the stop now
    s.seqno = seqno;
    s.reason = why.to_string();
    fresh = true;
  }
  ++s.failures;
  return fresh;
}

std::vector<ApplyFailures::Stuck> ApplyFailures::stuck(const std::map<InstanceId, Seqno>& applied) {
  std::lock_guard<std::mutex> g(mutex_);
  std::vector<Stuck> out;
  for (auto it = by_writer_.begin(); it != by_writer_.end();) {
    auto a = applied.find(it->first);
    if (a != applied.end() && a->second >= it->second.seqno) {
      it = by_writer_.erase(it);
      continue;
    }
    out.push_back(it->second);
    ++it;
  }
  return out;
}

}  // namespace vasana
