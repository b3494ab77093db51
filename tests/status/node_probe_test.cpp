// The node probe's histograms and counters, and how the exporter renders them.
#include <catch2/catch.hpp>

#include "status/metrics_exporter.hpp"
#include "status/node_probe.hpp"

namespace vasana {

TEST_CASE("a histogram counts each value in the first bucket whose bound holds it, cumulatively") {
  Histogram h({0.001, 0.01, 0.1});
  for (double v : {0.0005, 0.001, 0.005, 0.5}) h.observe(v);
  const HistogramCounts c = h.counts();
  REQUIRE(c.cumulative == std::vector<uint64_t>{2, 3, 3, 4});
  CHECK(c.sum == Approx(0.5065));
}

TEST_CASE("the probe's families render as Prometheus histograms and counters, seeded at 0") {
  NodeProbe probe({"keyword", "semantic"}, {"ipc", "tcp"}, {"remember", "recall"});
  probe.log_committed(0.00002, 0.0002, 3);
  probe.recall_answered(0.002, {"keyword", "unknown-lane"}, {0.001, 0.5});
  probe.request_answered("ipc", "remember", "ok");
  probe.request_answered("tcp", "recall", "bad-input");
  const ProbeSnapshot snap = probe.snapshot();
  const std::string text = status_to_prometheus_text(NodeStatus{}, &snap);
  INFO(text);
  CHECK(text.find("vasana_group_commit_records_bucket{le=\"4\"} 1") != std::string::npos);
  CHECK(text.find("vasana_group_commit_records_bucket{le=\"2\"} 0") != std::string::npos);
  CHECK(text.find("vasana_log_fdatasync_seconds_count 1") != std::string::npos);
  CHECK(text.find("vasana_recall_lane_seconds_count{lane=\"keyword\"} 1") != std::string::npos);
  CHECK(text.find("vasana_recall_lane_seconds_count{lane=\"semantic\"} 0") != std::string::npos);
  CHECK(text.find("unknown-lane") == std::string::npos);
  CHECK(text.find("vasana_client_requests_total{transport=\"ipc\",kind=\"remember\",result=\"ok\"} 1") !=
        std::string::npos);
  CHECK(text.find("vasana_client_requests_total{transport=\"tcp\",kind=\"recall\",result=\"permission-denied\"} 0") !=
        std::string::npos);
  CHECK(text.find("vasana_client_requests_total{transport=\"tcp\",kind=\"recall\",result=\"bad-input\"} 1") !=
        std::string::npos);
}

TEST_CASE("the digest gauge holds the digest's first 52 bits exactly, and is absent without a digest") {
  REQUIRE(digest52("fffffffffffff0") == (uint64_t(1) << 52) - 1);
  REQUIRE(digest52("0000000000001") == 1u);
  REQUIRE_FALSE(digest52("abc").has_value());
  REQUIRE_FALSE(digest52("zzzzzzzzzzzzzz").has_value());
  NodeStatus s;
  CHECK(status_to_prometheus_text(s).find("\nvasana_state_digest ") == std::string::npos);
  s.digest = "0000000000010" + std::string(51, '0');
  CHECK(status_to_prometheus_text(s).find("vasana_state_digest 16\n") != std::string::npos);
  // With the vector it covers, as a label: nodes are compared at equal vectors only.
  s.digest_vector = "00000000000000ab";
  CHECK(status_to_prometheus_text(s).find("vasana_state_digest{vector=\"00000000000000ab\"} 16\n") != std::string::npos);
  s.own_writer.state = "read-only";
  CHECK(status_to_prometheus_text(s).find("vasana_writer_read_only 1\n") != std::string::npos);
}

}  // namespace vasana
