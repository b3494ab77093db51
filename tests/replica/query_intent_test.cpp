// The query-intent reader: stop and question words, order cues and the dates a query names.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "protocol/memory_input.hpp"
#include "replica/query_intent.hpp"

using namespace vasana;
using Strings = std::vector<std::string>;

namespace {

// Wednesday 2026-05-20T15:30:00Z
const int64_t kNow = *parse_time_ms("2026-05-20T15:30:00Z");

int64_t at(const char* s) { return *parse_time_ms(s); }

struct Span {
  int64_t from, to;
};

Span window(const std::string& text) {
  const QueryIntent i = parse_query_intent(text, kNow);
  REQUIRE(i.from_ms.has_value());
  REQUIRE(i.to_ms.has_value());
  return {*i.from_ms, *i.to_ms};
}

bool no_window(const std::string& text) {
  const QueryIntent i = parse_query_intent(text, kNow);
  return !i.from_ms && !i.to_ms;
}

TimeOrder order(const std::string& text) { return parse_query_intent(text, kNow).order; }

}  // namespace

TEST_CASE("stop and question words do not score unless the query has no other word", "[intent]") {
  const QueryIntent i = parse_query_intent("What is the deploy process with Helm?", kNow);
  CHECK(i.scoring_words == Strings{"deploy", "process", "helm"});
  CHECK(i.scoring_text() == "deploy process helm");
  CHECK(i.topic);
  CHECK(i.order == TimeOrder::none);
  CHECK(!i.from_ms);
  // Contractions split at the apostrophe; the pieces are stop words.
  CHECK(parse_query_intent("what's the cache TTL? don't guess", kNow).scoring_words == Strings{"cache", "ttl", "guess"});
  // Negative: a query of nothing but stop words keeps every word.
  const QueryIntent only = parse_query_intent("who is it", kNow);
  CHECK(only.scoring_words == Strings{"who", "is", "it"});
  CHECK(!only.topic);
  CHECK(is_stop_word("with"));
  CHECK(is_stop_word("where"));
  CHECK(!is_stop_word("helm"));
  CHECK(!is_stop_word("deploy"));
}

TEST_CASE("newest-first cues", "[intent]") {
  CHECK(order("what was the most recent incident") == TimeOrder::newest_first);
  CHECK(order("latest release notes") == TimeOrder::newest_first);
  CHECK(order("newest runbook") == TimeOrder::newest_first);
  CHECK(order("what did we change recently") == TimeOrder::newest_first);
  CHECK(order("which cluster do we use currently") == TimeOrder::newest_first);
  CHECK(order("how do we deploy now") == TimeOrder::newest_first);
  CHECK(order("what broke last time") == TimeOrder::newest_first);
  CHECK(order("the current deploy process") == TimeOrder::newest_first);
  CHECK(order("what was the last incident") == TimeOrder::newest_first);
  // The cue words do not score; the topic does.
  CHECK(parse_query_intent("what was the most recent incident", kNow).scoring_words == Strings{"incident"});
  // Negative: a cue word outside its pattern is an ordinary word that scores.
  CHECK(order("induced current in convection flows") == TimeOrder::none);
  CHECK(parse_query_intent("induced current in convection flows", kNow).scoring_words ==
        Strings{"induced", "current", "convection", "flows"});
  CHECK(order("recent data on shock induced separation") == TimeOrder::none);
  CHECK(order("the deploy process") == TimeOrder::none);
}

TEST_CASE("oldest-first cues, and first only where it means an order", "[intent]") {
  CHECK(order("what was the first incident") == TimeOrder::oldest_first);
  CHECK(order("our first deploy") == TimeOrder::oldest_first);
  CHECK(order("what failed the first time") == TimeOrder::oldest_first);
  CHECK(order("what did we use at first") == TimeOrder::oldest_first);
  CHECK(order("earliest backup") == TimeOrder::oldest_first);
  CHECK(order("oldest open ticket") == TimeOrder::oldest_first);
  CHECK(order("which database did we originally pick") == TimeOrder::oldest_first);
  CHECK(parse_query_intent("what was the first incident", kNow).scoring_words == Strings{"incident"});
  // Negative: names with first, and first without a determiner.
  CHECK(order("where is the first aid kit") == TimeOrder::none);
  CHECK(parse_query_intent("where is the first aid kit", kNow).scoring_words == Strings{"first", "aid", "kit"});
  CHECK(order("the user's first name field") == TimeOrder::none);
  CHECK(order("first order boundary layer theory") == TimeOrder::none);
  // The first cue decides.
  CHECK(order("the latest of the first incidents") == TimeOrder::newest_first);
}

TEST_CASE("absolute dates become windows and their words still score", "[intent]") {
  Span s = window("what happened on 2023-05-14");
  CHECK(s.from == at("2023-05-14"));
  CHECK(s.to == at("2023-05-15"));
  CHECK(parse_query_intent("what happened on 2023-05-14", kNow).scoring_words == Strings{"happened", "2023", "05", "14"});
  s = window("outage May 14, 2023");
  CHECK(s.from == at("2023-05-14"));
  CHECK(s.to == at("2023-05-15"));
  s = window("outage on 14th May 2023");
  CHECK(s.from == at("2023-05-14"));
  s = window("deploys in May 2023");
  CHECK(s.from == at("2023-05-01"));
  CHECK(s.to == at("2023-06-01"));
  CHECK(parse_query_intent("deploys in May 2023", kNow).scoring_words == Strings{"deploys", "may", "2023"});
  s = window("budget in 2022");
  CHECK(s.from == at("2022-01-01"));
  CHECK(s.to == at("2023-01-01"));
  s = window("sep 3 2024 migration");
  CHECK(s.from == at("2024-09-03"));
  // Without a year: the latest such day or month at or before now (2026-05-20).
  s = window("the March 3 outage");
  CHECK(s.from == at("2026-03-03"));
  s = window("the outage on 3 December");
  CHECK(s.from == at("2025-12-03"));
  s = window("what did we ship in June");
  CHECK(s.from == at("2025-06-01"));
  CHECK(s.to == at("2025-07-01"));
  s = window("what did we ship in May");
  CHECK(s.from == at("2026-05-01"));
  // The first date decides.
  s = window("in 2021 or in 2022");
  CHECK(s.from == at("2021-01-01"));
}

TEST_CASE("words that look like dates but are not", "[intent]") {
  // may the verb (a stop word), march the verb, bare numbers, impossible days.
  CHECK(no_window("what may cause a deploy to fail"));
  CHECK(parse_query_intent("what may cause a deploy to fail", kNow).scoring_words == Strings{"cause", "deploy", "fail"});
  CHECK(no_window("march the migration forward"));
  CHECK(no_window("error 2023 in the logs"));
  CHECK(no_window("port 8080 in 99 ways"));
  CHECK(no_window("release 2023-02-30"));
  CHECK(no_window("mar the surface"));
  CHECK(no_window("this is the last one"));
  CHECK(order("this is the last one") == TimeOrder::newest_first);
}

TEST_CASE("relative dates count from the query's now and do not score", "[intent]") {
  Span s = window("what happened yesterday");
  CHECK(s.from == at("2026-05-19"));
  CHECK(s.to == at("2026-05-20"));
  CHECK(parse_query_intent("what happened yesterday", kNow).scoring_words == Strings{"happened"});
  s = window("deploys today");
  CHECK(s.from == at("2026-05-20"));
  CHECK(s.to == at("2026-05-21"));
  s = window("incidents this week");  // weeks start on Monday: 2026-05-18
  CHECK(s.from == at("2026-05-18"));
  CHECK(s.to == at("2026-05-25"));
  s = window("incidents last week");
  CHECK(s.from == at("2026-05-11"));
  CHECK(s.to == at("2026-05-18"));
  CHECK(parse_query_intent("incidents last week", kNow).scoring_words == Strings{"incidents"});
  s = window("costs last month");
  CHECK(s.from == at("2026-04-01"));
  CHECK(s.to == at("2026-05-01"));
  s = window("costs this month");
  CHECK(s.from == at("2026-05-01"));
  s = window("what changed last year");
  CHECK(s.from == at("2025-01-01"));
  CHECK(s.to == at("2026-01-01"));
  s = window("what changed 3 days ago");
  CHECK(s.from == at("2026-05-17"));
  CHECK(s.to == at("2026-05-18"));
  s = window("what changed a week ago");
  CHECK(s.from == at("2026-05-11"));
  s = window("what changed two months ago");
  CHECK(s.from == at("2026-03-01"));
  s = window("what changed 6 months ago");
  CHECK(s.from == at("2025-11-01"));
  CHECK(s.to == at("2025-12-01"));
  // Negative: the words alone are not a range.
  CHECK(no_window("the week planner"));
  CHECK(no_window("3 days of logs"));
  CHECK(no_window("last"));
}
