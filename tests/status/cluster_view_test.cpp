// `vasana cluster`'s view (status/cluster_view.hpp), built from a status alone: this node first,
// then its peers with how it reaches each and what its other peers reported of them, the members
// removed by op, and the digest with its vector.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "status/cluster_view.hpp"

namespace vasana {
namespace {

const std::string kA(40, 'a'), kB(40, 'b'), kC(40, 'c'), kE(40, 'e');

NodeStatus three_nodes() {
  NodeStatus s;
  s.instance = "00000000000000aa";
  s.cluster = "prod";
  s.public_key = kA;
  s.digest = "d1";
  s.digest_vector = "v1";
  s.members = {{kA, "tcp://10.0.0.1:7102", "a", true, "00000000000000aa"},
               {kB, "tcp://10.0.0.2:7102", "b", true, "00000000000000aa"},
               {kE, "", "e", false, "00000000000000bb"}};
  PeerStatus b;
  b.address = "tcp://10.0.0.2:7102";
  b.public_key = kB;
  b.origin = "member";
  b.up = true;
  b.last_heard_s = 0.2;
  b.instance = "00000000000000bb";
  b.reported = {{kC, "00000000000000cc", false, 42}, {kA, "00000000000000aa", true, 0.1}};
  PeerStatus c;
  c.address = "tcp://10.0.0.3:7102";
  c.public_key = kC;
  c.origin = "config";
  c.reported = {{kB, "00000000000000bb", true, 0.3}};
  PeerStatus sibling;
  sibling.address = "/srv/shared/n9";
  sibling.origin = "sibling";
  s.peers = {b, c, sibling};
  return s;
}

}  // namespace

TEST_CASE("the cluster view lists this node, its peers with what the other peers reported, and the removed") {
  const ClusterView v = cluster_view(three_nodes());
  REQUIRE(v.members.size() == 3);  // the sibling folder is no member
  CHECK(v.members[0].self);
  CHECK(v.members[0].name == "a");
  CHECK(v.members[0].address == "tcp://10.0.0.1:7102");
  // What b said of reaching this node; c said nothing of it.
  REQUIRE(v.members[0].reported.size() == 1);
  CHECK(v.members[0].reported[0].by == "b");
  CHECK(v.members[0].reported[0].up);
  // c is down from here, and b says it is down too; a peer never reports on itself.
  const MemberView& c = v.members[2];
  CHECK(c.origin == "config");
  CHECK_FALSE(c.up);
  REQUIRE(c.reported.size() == 1);
  CHECK(c.reported[0].by == "b");
  CHECK_FALSE(c.reported[0].up);
  CHECK(v.members[1].reported.size() == 1);  // c (by its address: no op names it) on b
  CHECK(v.members[1].reported[0].by == "tcp://10.0.0.3:7102");
  REQUIRE(v.removed.size() == 1);
  CHECK(v.removed[0].public_key == kE);

  const std::string text = cluster_to_text(v);
  CHECK(text.find("members (3)") != std::string::npos);
  CHECK(text.find("removed (1)") != std::string::npos);
  CHECK(text.find("state digest d1 at applied vector v1") != std::string::npos);
  CHECK(text.find("from here: up") != std::string::npos);
  CHECK(text.find("from b: down, heard 42.0 s ago") != std::string::npos);
  const auto j = nlohmann::json::parse(cluster_to_json(v));
  CHECK(j["members"].size() == 3);
  CHECK(j["removed"][0]["name"] == "e");
}

TEST_CASE("a member admitted by op with no link here is listed as such, and this node's own op is not a peer") {
  NodeStatus s = three_nodes();
  s.members.push_back(MemberStatus{std::string(40, 'f'), "tcp://10.0.0.6:7102", "f", true, "00000000000000aa"});
  const ClusterView v = cluster_view(s);
  REQUIRE(v.members.size() == 4);
  CHECK_FALSE(v.members[3].linked);
  CHECK(cluster_to_text(v).find("admitted, but no link from here") != std::string::npos);
  // Negative control: without the op, nothing is listed for it.
  CHECK(cluster_view(three_nodes()).members.size() == 3);
}

}  // namespace vasana
