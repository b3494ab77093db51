// The keyword lane's analyzer: what becomes a token, what separates, and what stems alike.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "replica/text_analyzer.hpp"

using namespace vasana;
using Strings = std::vector<std::string>;

TEST_CASE("ascii letters and digits are lowercased into tokens and everything else separates", "[analyzer]") {
  CHECK(TextAnalyzer::tokens("Boundary-layer FLOW, at Mach 2.5 (d'Alembert)!") ==
        Strings{"boundary", "layer", "flow", "at", "mach", "2", "5", "d", "alembert"});
  // Negative: nothing but separators gives no token.
  CHECK(TextAnalyzer::tokens(" -,.;:!?()[]{}'\"/\\\t\n").empty());
  CHECK(TextAnalyzer::tokens("").empty());
}

TEST_CASE("non-ascii letters stay inside a token and a utf-8 sequence is never split", "[analyzer]") {
  CHECK(TextAnalyzer::tokens("Café naïve ÜBER Straße") == Strings{"café", "naïve", "über", "straße"});
  CHECK(TextAnalyzer::tokens("Ωμέγα Москва 東京") == Strings{"ωμέγα", "москва", "東京"});
  // Negative: non-ascii punctuation, symbols and malformed bytes separate, and never leave a
  // partial sequence behind.
  CHECK(TextAnalyzer::tokens("left\u2014right \u201cquoted\u201d a\u00a0b 5\u00d73 ok\U0001F600go") ==
        Strings{"left", "right", "quoted", "a", "b", "5", "3", "ok", "go"});
  CHECK(TextAnalyzer::tokens("ab\xff" "cd") == Strings{"ab", "cd"});
  CHECK(TextAnalyzer::tokens("ab\xc3") == Strings{"ab"});                 // truncated sequence
  CHECK(TextAnalyzer::tokens("ab\xc3(cd") == Strings{"ab", "cd"});      // lead byte without continuation
  CHECK(TextAnalyzer::tokens("x\xc0\xafy") == Strings{"x", "y"});         // overlong '/'
  CHECK(TextAnalyzer::tokens("x\xed\xa0\x80y") == Strings{"x", "y"});     // surrogate
}

TEST_CASE("inflections stem to one term so flows finds flow", "[analyzer]") {
  const TextAnalyzer analyzer;
  const Strings flow = analyzer.terms("flow");
  REQUIRE(flow.size() == 1);
  CHECK(analyzer.terms("flows Flowing flowed") == Strings{flow[0], flow[0], flow[0]});
  CHECK(analyzer.terms("aerodynamics") == analyzer.terms("aerodynamic"));
  // Negative: a different word with a shared prefix is a different term.
  CHECK(analyzer.terms("flower") != flow);
  CHECK(analyzer.terms("wing") != flow);
}

TEST_CASE("repeated words keep their count and function words are terms", "[analyzer]") {
  const TextAnalyzer analyzer;
  CHECK(analyzer.terms("the flow of the flow") == Strings{"the", "flow", "of", "the", "flow"});
  // Negative: an empty or separator-only text has no terms.
  CHECK(analyzer.terms("").empty());
  CHECK(analyzer.terms(" -- ").empty());
}

TEST_CASE("a token longer than 64 bytes is dropped and one of 64 is kept", "[analyzer]") {
  const std::string kept(64, 'a'), dropped(65, 'b');
  CHECK(TextAnalyzer::tokens(kept + " x " + dropped) == Strings{kept, "x"});
  // Negative: a long run of multi-byte letters is measured in bytes: 33 x 2 bytes is too long.
  std::string long_letters;
  for (int i = 0; i < 33; ++i) long_letters += "é";
  CHECK(TextAnalyzer::tokens(long_letters).empty());
}

TEST_CASE("one analyzer gives the same terms to several threads at once", "[analyzer]") {
  const TextAnalyzer analyzer;
  const std::string text = "experimental investigation of the aerodynamics of a wing in a slipstream";
  const Strings expected = analyzer.terms(text);
  std::vector<Strings> got(4);
  std::vector<std::thread> threads;
  for (auto& g : got)
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) g = analyzer.terms(text);
    });
  for (auto& t : threads) t.join();
  for (const auto& g : got) CHECK(g == expected);
  // Negative: another text gives other terms (the threads did not share one result).
  CHECK(analyzer.terms("shock wave") != expected);
}
