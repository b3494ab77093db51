// Recall reads what a query's words ask for besides their topic (replica/query_intent.hpp):
// stop words do not decide the keyword lane's ranking, an order cue ranks the matching memories
// by time, and a date in the text is the temporal lane's window.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {
namespace {

constexpr int64_t kDay = 86400000;
constexpr int64_t kNow = 1'800'000'000'000;

struct Realm {
  RecallEngine engine{make_all_lanes(), ScoringWeights{}};
  uint64_t seq = 0;

  MemoryId put(const std::string& text, int64_t recorded_ms) {
    PutMemoryOp p;
    p.realm = "proj";
    p.text = text;
    const OrderKey k{Hlc::make(uint64_t(recorded_ms), 0), InstanceId(3), Seqno(++seq)};
    REQUIRE(engine.apply(k, p).ok());
    return k.op_id();
  }

  RecallResult recall(const std::string& text, std::vector<std::string> lanes = {}) const {
    RecallRequest r;
    r.text = text;
    r.scope = QueryScope{{"proj"}, kNow, false};
    r.limit = 10;
    r.lanes = std::move(lanes);
    r.now_ms = kNow;
    auto res = engine.recall(r);
    REQUIRE(res.ok());
    return *res;
  }
};

// Memories of a small software project, none of which shares a word with the queries below
// except where a test says so.
const std::vector<std::string> kFiller = {
    "Postgres runs on version 15 in production",
    "Code review needs two approvals before merge",
    "Grafana dashboards live in the ops repository",
    "Rotate the API keys every ninety days",
    "Feature flags are stored in LaunchDarkly",
    "Integration tests run nightly on Jenkins",
    "Logs are shipped to Loki through promtail",
    "The mobile app targets Android 12 and iOS 16",
    "Backups are encrypted with age and kept for a month",
    "On-call rotation changes every Monday at noon",
    "Style guide: four spaces, no tabs, 100 columns",
    "Redis caches session tokens for fifteen minutes",
    "Terraform state lives in an S3 bucket with locking",
    "Customer support escalations go to the triage channel",
    "Release notes are drafted by the product owner",
    "Load balancer health checks hit /healthz every ten seconds",
    "Secrets are mounted from Vault at startup",
    "Frontend builds use Vite and pnpm",
    "Database migrations are written with Alembic",
    "Error budgets reset at the start of each quarter",
    "The staging environment mirrors production sizing",
    "Metrics retention is thirty days in Prometheus",
    "TLS certificates renew through cert-manager",
    "The search service indexes documents with OpenSearch",
    "Sprint planning happens every second Tuesday",
};

bool ran(const RecallResult& r, const std::string& lane) {
  return std::find(r.lanes.begin(), r.lanes.end(), lane) != r.lanes.end();
}

std::string dump(const RecallResult& r) {
  std::string out;
  for (const auto& h : r.hits) {
    out += h.id.to_string() + " " + std::to_string(h.score) + ":";
    for (const auto& l : h.lanes) out += " " + l.lane + "#" + std::to_string(l.rank);
    out += "\n";
  }
  return out;
}

size_t rank_of(const RecallResult& r, const MemoryId& id) {
  for (size_t i = 0; i < r.hits.size(); ++i)
    if (r.hits[i].id == id) return i + 1;
  return 0;
}

}  // namespace

TEST_CASE("stop and question words do not decide the keyword lane's ranking in a small realm") {
  Realm realm;
  int64_t t = kNow - 100 * kDay;
  for (const auto& text : kFiller) realm.put(text, t += kDay);
  const MemoryId helm = realm.put("Deploys go out through helm upgrade from the CI pipeline", t += kDay);
  const MemoryId chatter = realm.put("What is on with the team is what the standup is for, with coffee", t += kDay);
  for (const auto& lanes : std::vector<std::vector<std::string>>{{"keyword"}, {}}) {
    CAPTURE(lanes);
    const RecallResult r = realm.recall("what is the deploy process with helm", lanes);
    REQUIRE(!r.hits.empty());
    CHECK(r.hits.front().id == helm);
    const size_t chatter_rank = rank_of(r, chatter);
    CHECK((chatter_rank == 0 || chatter_rank > rank_of(r, helm)));
  }
  // Positive control: a query of nothing but stop words still finds what holds them.
  const RecallResult only = realm.recall("what is on with the team", {"keyword"});
  REQUIRE(!only.hits.empty());
  CHECK(only.hits.front().id == chatter);
}

TEST_CASE("an order cue ranks the matching memories by time, and no cue leaves the order to relevance") {
  Realm realm;
  int64_t t = kNow - 100 * kDay;
  for (size_t i = 0; i < kFiller.size(); i += 2) realm.put(kFiller[i], t += kDay);
  const MemoryId oldest = realm.put("Incident: the payment webhook queue backed up for an hour", kNow - 60 * kDay);
  // The best match for "incident" by relevance: the shortest text, the word twice.
  const MemoryId middle = realm.put("Incident review: DNS incident took the API down", kNow - 30 * kDay);
  const MemoryId newest = realm.put("Incident: disk full on the build runner stopped all CI jobs for a while", kNow - 5 * kDay);
  // Newer memories that are no incident.
  MemoryId last_recorded;
  for (size_t i = 1; i < kFiller.size(); i += 2) last_recorded = realm.put(kFiller[i], kNow - 4 * kDay + int64_t(i) * 1000);

  const RecallResult plain = realm.recall("what was the incident");
  CHECK(!ran(plain, "temporal"));
  REQUIRE(!plain.hits.empty());
  CHECK(plain.hits.front().id == middle);  // relevance decides

  const RecallResult recent = realm.recall("what was the most recent incident");
  CHECK(ran(recent, "temporal"));
  REQUIRE(recent.hits.size() >= 3);
  INFO(dump(recent) << "newest " << newest.to_string() << " middle " << middle.to_string() << " oldest " << oldest.to_string());
  CHECK(recent.hits[0].id == newest);
  CHECK(rank_of(recent, middle) < rank_of(recent, oldest));

  const RecallResult first = realm.recall("what was the first incident");
  CHECK(ran(first, "temporal"));
  REQUIRE(first.hits.size() >= 3);
  CHECK(first.hits[0].id == oldest);

  // The temporal lane orders only the incidents: the newer memories that are no incident are
  // not among its candidates.
  for (const auto& h : recent.hits)
    for (const auto& l : h.lanes)
      if (l.lane == "temporal") CHECK((h.id == oldest || h.id == middle || h.id == newest));
  // A cue without a topic orders the whole realm: the newest memory comes first.
  const RecallResult latest = realm.recall("what is the latest", {"temporal"});
  REQUIRE(!latest.hits.empty());
  CHECK(latest.hits.front().id == last_recorded);
}

TEST_CASE("a date in the query's text is the temporal lane's window when the client gave none") {
  Realm realm;
  int64_t t = kNow - 100 * kDay;
  for (const auto& text : kFiller) realm.put(text, t += kDay);
  const MemoryId yesterday = realm.put("Rolled back the checkout service after errors", kNow - kDay + 3600000);
  const RecallResult r = realm.recall("what broke yesterday");
  CHECK(ran(r, "temporal"));
  REQUIRE(!r.hits.empty());
  INFO(dump(r) << "yesterday " << yesterday.to_string());
  CHECK(r.hits.front().id == yesterday);
  // Negative: without a date the temporal lane does not run, and the memory has no word of the
  // query to be found by.
  const RecallResult plain = realm.recall("what broke");
  CHECK(!ran(plain, "temporal"));
  // A window the client gives wins over the text's.
  RecallRequest q;
  q.text = "what broke yesterday";
  q.scope = QueryScope{{"proj"}, kNow, false};
  q.now_ms = kNow;
  q.lanes = {"temporal"};
  q.window_from_ms = kNow - 100 * kDay;
  q.window_to_ms = kNow - 99 * kDay + 1;
  auto windowed = realm.engine.recall(q);
  REQUIRE(windowed.ok());
  for (const auto& h : windowed->hits) CHECK(h.id != yesterday);
}

}  // namespace vasana
