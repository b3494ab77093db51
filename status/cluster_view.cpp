#include "status/cluster_view.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "status/lag_render.hpp"
#include "sync/writer_lags.hpp"

namespace vasana {

namespace {

using json = nlohmann::ordered_json;

std::string reach_text(bool up, double last_heard_s) {
  std::string heard = last_heard_s < 0 || !std::isfinite(last_heard_s) ? "never heard"
                                                                       : "heard " + seconds_text(last_heard_s) + " ago";
  return std::string(up ? "up" : "down") + ", " + heard;
}

}  // namespace

ClusterView cluster_view(const NodeStatus& s) {
  ClusterView v;
  v.cluster = s.cluster;
  v.instance = s.instance;
  v.digest = s.digest;
  v.digest_vector = s.digest_vector;
  v.lags = writer_lags(s.peers);
  std::map<std::string, const MemberStatus*> by_key;
  for (const MemberStatus& m : s.members) {
    by_key[m.public_key] = &m;
    if (!m.admitted) v.removed.push_back(m);
  }
  auto name_of = [&](const std::string& key) {
    auto it = by_key.find(key);
    return it == by_key.end() ? std::string() : it->second->name;
  };

  MemberView self;
  self.self = true;
  self.origin = "self";
  self.public_key = s.public_key;
  self.instance = s.instance;
  self.name = name_of(s.public_key);
  if (auto it = by_key.find(s.public_key); it != by_key.end()) self.address = it->second->address;
  v.members.push_back(self);
  for (const PeerStatus& p : s.peers) {
    if (p.origin == "sibling") continue;
    MemberView m;
    m.name = name_of(p.public_key);
    m.public_key = p.public_key;
    m.address = p.address;
    m.origin = p.origin;
    m.linked = true;
    m.up = p.up;
    m.last_heard_s = p.last_heard_s;
    m.instance = p.instance;
    v.members.push_back(std::move(m));
  }
  // Admitted by op, with no link here (the link could not start: its log line says why).
  for (const MemberStatus& m : s.members) {
    if (!m.admitted || m.public_key == s.public_key) continue;
    bool listed = false;
    for (const MemberView& x : v.members) listed = listed || x.public_key == m.public_key;
    if (!listed) v.members.push_back(MemberView{m.name, m.public_key, m.address, "member", false, false, false, -1, "", {}});
  }
  // What the other peers reported of each member, this node included.
  for (MemberView& m : v.members) {
    for (const PeerStatus& p : s.peers) {
      if (p.origin == "sibling" || p.public_key == m.public_key) continue;
      const std::string by = name_of(p.public_key).empty() ? p.address : name_of(p.public_key);
      for (const PeerReport& r : p.reported)
        if (r.public_key == m.public_key) m.reported.push_back(MemberReport{by, r.up, r.last_heard_s});
    }
  }
  return v;
}

std::string cluster_to_text(const ClusterView& v) {
  std::string out;
  out += "cluster '" + v.cluster + "' as node " + v.instance + " sees it\n";
  out += "state digest " + v.digest + (v.digest_vector.empty() ? std::string() : " at applied vector " + v.digest_vector) +
         "\n";
  out += "\nmembers (" + std::to_string(v.members.size()) + ")\n";
  for (const MemberView& m : v.members) {
    out += "  " + (m.name.empty() ? std::string("-") : m.name) + "  " + m.public_key + "  " +
           (m.address.empty() ? std::string("(address not recorded)") : m.address) + "  [" + m.origin + "]\n";
    if (m.self) {
      out += "      this node (" + m.instance + ")\n";
    } else if (!m.linked) {
      out += "      admitted, but no link from here (see the node's log)\n";
    } else {
      out += "      from here: " + reach_text(m.up, m.last_heard_s) +
             (m.instance.empty() ? std::string() : ", instance " + m.instance) + "\n";
    }
    for (const MemberReport& r : m.reported) out += "      from " + r.by + ": " + reach_text(r.up, r.last_heard_s) + "\n";
  }
  out += "\nremoved (" + std::to_string(v.removed.size()) + ")\n";
  for (const MemberStatus& m : v.removed)
    out += "  " + (m.name.empty() ? std::string("-") : m.name) + "  " + m.public_key + "  removed by writer " + m.by + "\n";
  out += "\nlag per writer (" + std::to_string(v.lags.size()) + ")\n";
  out += writer_lags_text(v.lags);
  return out;
}

std::string cluster_to_json(const ClusterView& v) {
  json j = json::object();
  j["cluster"] = v.cluster;
  j["instance"] = v.instance;
  j["digest"] = v.digest;
  j["digest_vector"] = v.digest_vector;
  json members = json::array();
  for (const MemberView& m : v.members) {
    json reported = json::array();
    for (const MemberReport& r : m.reported)
      reported.push_back({{"by", r.by}, {"up", r.up}, {"last_heard_s", number_or_null(r.last_heard_s)}});
    members.push_back({{"name", m.name},
                       {"public_key", m.public_key},
                       {"address", m.address},
                       {"origin", m.origin},
                       {"self", m.self},
                       {"linked", m.linked},
                       {"up", m.up},
                       {"last_heard_s", number_or_null(m.last_heard_s)},
                       {"instance", m.instance},
                       {"reported", std::move(reported)}});
  }
  j["members"] = std::move(members);
  json removed = json::array();
  for (const MemberStatus& m : v.removed) removed.push_back({{"name", m.name}, {"public_key", m.public_key}, {"by", m.by}});
  j["removed"] = std::move(removed);
  j["writer_lags"] = writer_lags_json(v.lags);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace vasana
