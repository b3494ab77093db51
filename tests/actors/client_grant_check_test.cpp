// Who a call acts as (resolve_identity) and what a client may see of the state (CallerView):
// only the owner's IPC socket may act as a client, a TCP call without a client key is nobody, and
// a memory in a realm without grants is not shown.
#include <catch2/catch.hpp>

#include "actors/client_grant_check.hpp"

namespace vasana {
namespace {

ClientGrants grants() {
  ClientGrants g;
  ClientGrant agent;
  agent.name = "agent";
  agent.read = {"alpha"};
  agent.write = {"alpha"};
  agent.public_key = "agent-key";
  g.add(agent);
  ClientGrant drop;
  drop.name = "drop";
  drop.write = {"inbox"};
  g.add(drop);
  ClientGrant dashboard;
  dashboard.name = "dashboard";
  dashboard.read = {"*"};
  g.add(dashboard);
  return g;
}

ClientCall call(ClientTransport t, const std::string& key, const std::string& as) {
  ClientCall c;
  c.transport = t;
  c.client_key = key;
  c.request.acting_as = as;
  return c;
}

}  // namespace

TEST_CASE("only the owner's IPC socket may act as a named client and TCP without a key is refused") {
  const ClientGrants g = grants();
  ClientCall owner = call(ClientTransport::ipc, "", "");
  CHECK_FALSE(resolve_identity(g, owner));
  CHECK(owner.who == nullptr);
  ClientCall as_agent = call(ClientTransport::ipc, "", "agent");
  CHECK_FALSE(resolve_identity(g, as_agent));
  REQUIRE(as_agent.who);
  CHECK(as_agent.who->name == "agent");

  ClientCall keyless = call(ClientTransport::tcp, "", "");
  auto refused = resolve_identity(g, keyless);
  REQUIRE(refused);
  CHECK(refused->find("only clients with a configured client key") != std::string::npos);
  ClientCall keyless_as = call(ClientTransport::tcp, "", "agent");
  CHECK(resolve_identity(g, keyless_as));
  CHECK(keyless_as.who == nullptr);

  ClientCall keyed = call(ClientTransport::tcp, "agent-key", "");
  CHECK_FALSE(resolve_identity(g, keyed));
  REQUIRE(keyed.who);
  CHECK(keyed.who->name == "agent");
  ClientCall keyed_as_other = call(ClientTransport::tcp, "agent-key", "dashboard");
  CHECK(resolve_identity(g, keyed_as_other));
}

TEST_CASE("the node's status is granted to the owner and to clients that read every realm only") {
  const ClientGrants g = grants();
  ClientCall c;
  c.request.kind = ClientRequest::Kind::status;
  c.who = nullptr;
  CHECK_FALSE(grant_refusal(c, nullptr));
  c.who = g.by_name("dashboard");
  CHECK_FALSE(grant_refusal(c, nullptr));
  c.who = g.by_name("agent");
  auto refused = grant_refusal(c, nullptr);
  REQUIRE(refused);
  CHECK(refused->find("may not read the node's status") != std::string::npos);
  c.request.kind = ClientRequest::Kind::ping;
  CHECK_FALSE(grant_refusal(c, nullptr));
}

TEST_CASE("only the owner changes the cluster's members, whatever a client's grants") {
  const ClientGrants g = grants();
  ClientCall c;
  c.request.kind = ClientRequest::Kind::member;
  c.request.member = SetMemberOp{std::string(40, 'k'), "tcp://10.0.0.4:7102", true, "d"};
  c.who = nullptr;
  CHECK_FALSE(grant_refusal(c, nullptr));  // the owner
  for (const char* name : {"dashboard", "agent"}) {
    c.who = g.by_name(name);
    auto refused = grant_refusal(c, nullptr);
    REQUIRE(refused);
    CHECK(refused->find("may not change the cluster's members") != std::string::npos);
  }
  CHECK(request_writes(c));
}

TEST_CASE("a fact's or correction's source memory goes through the grant check of its realm") {
  const ClientGrants g = grants();
  ClientCall c;
  c.who = g.by_name("agent");
  c.request.kind = ClientRequest::Kind::fact;
  c.request.fact.realm = "alpha";
  CHECK_FALSE(grant_needs_state(c));
  c.request.fact.source_memory = MemoryId{InstanceId(1), Seqno(3)};
  CHECK(grant_needs_state(c));
  c.request.kind = ClientRequest::Kind::correct;
  c.request.correct.realm = "alpha";
  c.request.correct.source_memory = MemoryId{InstanceId(1), Seqno(3)};
  CHECK(grant_needs_state(c));
  // A source held in a realm the client reads but may not write is refused, naming the grant.
  const RealmOf in_beta_readable = [](const MemoryId&) { return std::optional<std::string>("beta"); };
  ClientGrants with_beta = grants();
  with_beta.all()[0].read.push_back("beta");
  c.who = with_beta.by_name("agent");
  auto refused = grant_refusal(c, &in_beta_readable);
  REQUIRE(refused);
  CHECK(*refused == "client 'agent' may not write realm 'beta'");
  c.who = nullptr;
  CHECK_FALSE(grant_needs_state(c));  // the owner needs no state
}

}  // namespace vasana
