// Client grants enforced through the real binary: `--as NAME` on the IPC socket, CurveZMQ client
// keys on the TCP client endpoint, the review grant, and the refusal counter. Each case has the
// allowed request next to the refused one, and checks that a refused write wrote nothing.
#include <catch2/catch.hpp>

#include <chrono>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sync/curve_keys.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/granted_node.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// The value of vasana_client_requests_refused_total for (transport, kind); 0 when absent.
double refused_sample(const std::string& metrics, const std::string& transport, const std::string& kind) {
  std::smatch m;
  const std::regex a("vasana_client_requests_refused_total\\{kind=\"" + kind + "\",transport=\"" + transport +
                     "\"\\} ([0-9.e+]+)");
  const std::regex b("vasana_client_requests_refused_total\\{transport=\"" + transport + "\",kind=\"" + kind +
                     "\"\\} ([0-9.e+]+)");
  if (std::regex_search(metrics, m, a) || std::regex_search(metrics, m, b)) return std::stod(m[1]);
  return 0;
}

const char* kReaderToml = R"([clients."reader"]
read = ["alpha"]
[clients."writer"]
read = ["alpha"]
write = ["alpha"]
[clients."reviewer"]
read = ["alpha"]
write = ["alpha"]
review = true
[clients."eraser"]
read = ["alpha"]
write = ["alpha"]
erase = true
[clients."dropbox"]
write = ["beta"]
[metrics]
listen = "127.0.0.1:0"
)";

}  // namespace

TEST_CASE("a client acting over the IPC socket reads and writes only its realms, and the owner everything") {
  GrantedNode n(kReaderToml);
  const std::string in_alpha = n.remember("alpha", "alpha " + token(1));
  const std::string in_beta = n.remember("beta", "beta " + token(2));
  REQUIRE(n.memories_written() == 2);

  // Its own realm: recall, get, list and history answer.
  auto ok = n.run({"recall", "--as", "reader", "--realm", "alpha", token(1)});
  CHECK(ok.status.code == 0);
  CHECK(contains(ok.out, token(1)));
  auto got = n.run({"get", "--as", "reader", in_alpha});
  CHECK(got.status.code == 0);
  CHECK(contains(got.out, token(1)));
  CHECK(n.run({"list", "--as", "reader", "--realm", "alpha"}).status.code == 0);
  CHECK(n.run({"history", "--as", "reader", in_alpha}).status.code == 0);

  // Another realm: a read naming it is refused, exit 1, the message names the client and the
  // realm; a get or history of a memory held there is answered as for a memory not held
  // (tests/cli/foreign_id_test.cpp compares the two), showing nothing of it.
  auto recall = n.run({"recall", "--as", "reader", "--realm", "beta", token(2)});
  CHECK(recall.status.code == 1);
  CHECK(contains(recall.err, "client 'reader' may not read realm 'beta'"));
  CHECK_FALSE(contains(recall.out, token(2)));
  auto scope = n.run({"recall", "--as", "reader", "--realm", "alpha", "--realm", "beta", token(2)});
  CHECK(scope.status.code == 1);
  CHECK_FALSE(contains(scope.out, token(2)));
  auto get = n.run({"get", "--as", "reader", in_beta});
  CHECK(get.status.code == 1);
  CHECK(contains(get.err, "no memory " + in_beta + " on this node"));
  CHECK_FALSE(contains(get.out + get.err, token(2)));
  auto history = n.run({"history", "--as", "reader", in_beta});
  CHECK(history.status.code == 1);
  CHECK_FALSE(contains(history.out + history.err, token(2)));
  CHECK(n.run({"list", "--as", "reader", "--realm", "beta"}).status.code == 1);
  CHECK(n.run({"contradictions", "--as", "reader", "--realm", "beta"}).status.code == 1);

  // Writes: refused without the write grant (its own realm included), and nothing is written.
  auto write_alpha = n.run({"remember", "--as", "reader", "--realm", "alpha", "reader " + token(3)});
  CHECK(write_alpha.status.code == 1);
  CHECK(contains(write_alpha.err, "client 'reader' may not write realm 'alpha'"));
  auto write_beta = n.run({"remember", "--as", "writer", "--realm", "beta", "writer " + token(4)});
  CHECK(write_beta.status.code == 1);
  CHECK(contains(write_beta.err, "client 'writer' may not write realm 'beta'"));
  auto forget_beta = n.run({"forget", "--as", "writer", in_beta});
  CHECK(forget_beta.status.code == 1);
  CHECK(contains(forget_beta.err, "memory " + in_beta + " not found on this node"));
  // A realm it may read but not write: the refusal names the grant it lacks.
  auto forget_alpha = n.run({"forget", "--as", "reader", in_alpha});
  CHECK(forget_alpha.status.code == 1);
  CHECK(contains(forget_alpha.err, "client 'reader' may not write realm 'alpha'"));
  auto pin_beta = n.run({"pin", "--as", "writer", in_beta});
  CHECK(pin_beta.status.code == 1);
  auto supersede = n.run({"remember", "--as", "writer", "--realm", "alpha", "--supersedes", in_beta, "new " + token(5)});
  CHECK(supersede.status.code == 1);
  CHECK(contains(supersede.err, "superseded memory " + in_beta + " not found on this node"));
  CHECK(n.memories_written() == 2);

  // The writer writes its realm.
  auto written = n.run({"remember", "--as", "writer", "--realm", "alpha", "writer " + token(6)});
  CHECK(written.status.code == 0);
  CHECK(n.memories_written() == 3);

  // The owner is unaffected: it reads and writes every realm.
  auto owner = n.run({"recall", "--realm", "beta", token(2)});
  CHECK(owner.status.code == 0);
  CHECK(contains(owner.out, token(2)));
  CHECK(n.run({"get", in_beta}).status.code == 0);
  CHECK(n.run({"pin", in_beta}).status.code == 0);
}

TEST_CASE("acting as a name no client has is refused, and a configured name is not") {
  GrantedNode n(kReaderToml);
  n.remember("alpha", "alpha " + token(7));
  auto unknown = n.run({"recall", "--as", "nobody", "--realm", "alpha", token(7)});
  CHECK(unknown.status.code == 1);
  CHECK(contains(unknown.err, "acting as 'nobody': no client of that name is configured"));
  CHECK_FALSE(contains(unknown.out, token(7)));
  auto write = n.run({"remember", "--as", "nobody", "--realm", "alpha", "ghost " + token(8)});
  CHECK(write.status.code == 1);
  CHECK(n.memories_written() == 1);
  auto known = n.run({"recall", "--as", "reader", "--realm", "alpha", token(7)});
  CHECK(known.status.code == 0);
  CHECK(contains(known.out, token(7)));
  CHECK(n.run({"recall", "--as", "", "--realm", "alpha", token(7)}).status.code == 2);  // bad usage
}

TEST_CASE("review needs the review grant: a writer without it is refused, a reviewer is not") {
  GrantedNode n(kReaderToml);
  auto proposed = n.run({"remember", "--realm", "alpha", "--origin", "model", "guess " + token(9)});
  REQUIRE(proposed.status.code == 0);
  const std::string id = first_line(proposed.out);
  auto refused = n.run({"review", "approve", id, "--reviewer", "w", "--as", "writer"});
  CHECK(refused.status.code == 1);
  CHECK(contains(refused.err, "client 'writer' may not review"));
  auto reader = n.run({"review", "approve", id, "--reviewer", "r", "--as", "reader"});
  CHECK(reader.status.code == 1);
  auto st = read_own_stream(n.data);
  CHECK(st.scan.last_seqno.value == 1);  // nothing written by the refusals
  auto approved = n.run({"review", "approve", id, "--reviewer", "rv", "--as", "reviewer"});
  CHECK(approved.status.code == 0);
  CHECK(read_own_stream(n.data).scan.last_seqno.value == 2);
}

TEST_CASE("erase needs the erase grant and write on the memory's realm (elsewhere the memory is not found)") {
  GrantedNode n(kReaderToml);
  const std::string in_alpha = n.remember("alpha", "alpha secret " + token(11));
  const std::string in_beta = n.remember("beta", "beta secret " + token(12));
  auto refused = n.run({"erase", in_alpha, "--as", "writer"});
  CHECK(refused.status.code == 1);
  CHECK(contains(refused.err, "client 'writer' may not erase (it has no erase grant)"));
  CHECK(n.run({"erase", in_alpha, "--as", "reviewer"}).status.code == 1);
  // A realm it may not write, nor read: answered as an id the node does not hold.
  auto elsewhere = n.run({"erase", in_beta, "--as", "eraser"});
  CHECK(elsewhere.status.code == 1);
  CHECK(contains(elsewhere.err, "not found on this node"));
  CHECK_FALSE(contains(elsewhere.err, "beta"));
  CHECK(read_own_stream(n.data).scan.last_seqno.value == 2);  // nothing written by the refusals
  auto erased = n.run({"erase", in_alpha, "--reason", "a secret", "--as", "eraser"});
  CHECK(erased.status.code == 0);
  CHECK(read_own_stream(n.data).scan.last_seqno.value == 3);
  auto got = n.run({"get", in_alpha, "--as", "eraser"});
  CHECK(contains(got.out, "status: erased"));
  CHECK(contains(got.out, "erased_by: eraser"));
  CHECK_FALSE(contains(got.out, token(11)));
}

TEST_CASE("conflict candidates name existing memories only to a client that may read the realm") {
  GrantedNode n(kReaderToml);
  const std::string text = "the beta release train leaves every second thursday " + token(20);
  const std::string first = n.remember("beta", text);
  // The owner reads everything: the near duplicate comes back with its text.
  auto owner = n.run({"remember", "--realm", "beta", "--json", text + " morning"});
  REQUIRE(owner.status.code == 0);
  CHECK(contains(owner.out, "\"candidates\":[{\"id\":\"" + first + "\""));
  // A client that may write the realm but not read it learns nothing of what it holds.
  auto blind = n.run({"remember", "--as", "dropbox", "--realm", "beta", "--json", text + " evening"});
  REQUIRE(blind.status.code == 0);
  CHECK(contains(blind.out, "\"candidates\":[]"));
  CHECK_FALSE(contains(blind.err, first));
}

TEST_CASE("refused requests are counted by transport and kind in vasana_client_requests_refused_total") {
  GrantedNode n(kReaderToml);
  const int port = metrics_port(n.node->stderr_text());
  REQUIRE(port != 0);
  n.remember("beta", "beta " + token(10));
  // Allowed requests count nothing.
  REQUIRE(n.run({"recall", "--as", "reader", "--realm", "alpha", "x"}).status.code == 0);
  std::string metrics = http_get(port, "/metrics");
  CHECK(contains(metrics, "vasana_client_requests_refused_total"));
  CHECK(refused_sample(metrics, "ipc", "recall") == 0);
  // Two refused recalls, one refused remember.
  CHECK(n.run({"recall", "--as", "reader", "--realm", "beta", "x"}).status.code == 1);
  CHECK(n.run({"recall", "--as", "nobody", "--realm", "alpha", "x"}).status.code == 1);
  CHECK(n.run({"remember", "--as", "reader", "--realm", "alpha", "y"}).status.code == 1);
  metrics = http_get(port, "/metrics");
  CHECK(refused_sample(metrics, "ipc", "recall") == 2);
  CHECK(refused_sample(metrics, "ipc", "remember") == 1);
}

TEST_CASE("over TCP with client keys only listed keys connect, each acting as its own client") {
  TempDir keys;
  for (const char* who : {"node", "agent", "stranger"})
    REQUIRE(run_vasana({"keygen", "--out", keys.sub(who)}, keys.path()).status.code == 0);
  auto agent_public = load_public_key_file(keys.sub("agent") + "/node.public");
  REQUIRE(agent_public.ok());
  const std::string toml = "[client]\ntcp = \"tcp://127.0.0.1:*\"\n[sync]\nsecret_key_file = \"" + keys.sub("node") +
                           "/node.secret\"\n[clients.\"agent\"]\nread = [\"alpha\"]\nwrite = [\"alpha\"]\npublic_key = \"" +
                           agent_public.value() + "\"\n[clients.\"other\"]\nread = [\"beta\"]\nwrite = [\"beta\"]\n";
  GrantedNode n(toml);
  const std::string tcp = tcp_endpoint_of(n.data);
  REQUIRE(tcp.rfind("tcp://", 0) == 0);
  const std::string server_key_file = keys.sub("node") + "/node.public";
  auto as_key = [&](const std::string& who, std::vector<std::string> args) {
    std::vector<std::string> full = {args[0], "--connect", tcp, "--client-key", keys.sub(who) + "/node.secret",
                                     "--server-key-file", server_key_file, "--timeout-ms", "3000"};
    full.insert(full.end(), args.begin() + 1, args.end());
    return run_vasana(full, n.tmp.path());
  };
  n.remember("beta", "beta " + token(11));

  // The agent's key: its realm works, the other is refused.
  auto remembered = as_key("agent", {"remember", "--realm", "alpha", "agent " + token(12)});
  CHECK(remembered.status.code == 0);
  auto recalled = as_key("agent", {"recall", "--realm", "alpha", token(12)});
  CHECK(recalled.status.code == 0);
  CHECK(contains(recalled.out, token(12)));
  auto other_realm = as_key("agent", {"recall", "--realm", "beta", token(11)});
  CHECK(other_realm.status.code == 1);
  CHECK(contains(other_realm.err, "client 'agent' may not read realm 'beta'"));
  CHECK_FALSE(contains(other_realm.out, token(11)));

  // Acting as another client with the agent's key: refused, nothing written.
  auto spoof = as_key("agent", {"remember", "--as", "other", "--realm", "beta", "spoof " + token(13)});
  CHECK(spoof.status.code == 1);
  CHECK(contains(spoof.err, "client 'agent' (by its client key) may not act as 'other'"));
  auto spoof_read = as_key("agent", {"recall", "--as", "other", "--realm", "beta", token(11)});
  CHECK(spoof_read.status.code == 1);
  CHECK_FALSE(contains(spoof_read.out, token(11)));
  // Naming itself is allowed.
  CHECK(as_key("agent", {"recall", "--as", "agent", "--realm", "alpha", token(12)}).status.code == 0);

  // A key the node does not list never gets an answer: exit 1 within the client's time-out.
  const auto t0 = std::chrono::steady_clock::now();
  auto stranger = as_key("stranger", {"remember", "--realm", "alpha", "stranger " + token(14)});
  CHECK(stranger.status.code == 1);
  CHECK_FALSE(stranger.timed_out);
  CHECK(std::chrono::steady_clock::now() - t0 < 15s);
  // Nor does a client without CURVE.
  auto plain = run_vasana({"recall", "--connect", tcp, "--timeout-ms", "2000", "--realm", "alpha", token(12)}, n.tmp.path());
  CHECK(plain.status.code == 1);
  CHECK_FALSE(contains(plain.out, token(12)));
  CHECK(n.memories_written() == 2);  // the owner's and the agent's

  // The owner on the IPC socket is unaffected.
  auto owner = n.run({"recall", "--realm", "beta", token(11)});
  CHECK(owner.status.code == 0);
  CHECK(contains(owner.out, token(11)));
}

TEST_CASE("client key options are checked before connecting") {
  TempDir tmp;
  auto no_server = run_vasana({"recall", "--connect", "tcp://127.0.0.1:1", "--client-key", tmp.sub("x"), "--realm", "a", "q"},
                              tmp.path());
  CHECK(no_server.status.code == 2);
  CHECK(contains(no_server.err, "--client-key needs the node's public key"));
  auto ipc = run_vasana({"recall", "--connect", "ipc://" + tmp.sub("s"), "--client-key", tmp.sub("x"), "--server-key",
                         "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "--realm", "a", "q"},
                        tmp.path());
  CHECK(ipc.status.code == 2);
  CHECK(contains(ipc.err, "is for a TCP client endpoint"));
}

}  // namespace vasana::test
