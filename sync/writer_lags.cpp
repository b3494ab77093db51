#include "sync/writer_lags.hpp"

#include <algorithm>
#include <map>

namespace vasana {

std::vector<WriterLag> writer_lags(const std::vector<PeerStatus>& peers) {
  struct Over {
    WriterLag lag;
    double level_s = -1;   // shortest lag_seconds of peers that are not ahead; -1: none
    double behind_s = -1;  // longest lag_seconds of peers that are ahead; -1: none
  };
  std::map<std::string, Over> by_writer;
  for (const PeerStatus& p : peers)
    for (const WriterLag& l : p.writers) {
      auto [it, fresh] = by_writer.try_emplace(l.writer);
      Over& o = it->second;
      if (fresh) o.lag.writer = l.writer;
      o.lag.peer_seqno = std::max(o.lag.peer_seqno, l.peer_seqno);
      o.lag.applied_seqno = std::max(o.lag.applied_seqno, l.applied_seqno);
      o.lag.lag_ops = std::max(o.lag.lag_ops, l.lag_ops);
      if (l.lag_ops > 0)
        o.behind_s = std::max(o.behind_s, l.lag_seconds);
      else
        o.level_s = o.level_s < 0 ? l.lag_seconds : std::min(o.level_s, l.lag_seconds);
    }
  std::vector<WriterLag> out;
  out.reserve(by_writer.size());
  for (auto& [writer, o] : by_writer) {
    o.lag.lag_seconds = o.behind_s >= 0 ? o.behind_s : std::max(0.0, o.level_s);
    out.push_back(o.lag);
  }
  return out;
}

}  // namespace vasana
