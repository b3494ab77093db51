// A correction's wrong phrase replaced by its right one in its source memory's text
// (replica/phrase_replace.hpp): as written first, else as a run of normalised words.
#include <catch2/catch.hpp>

#include "replica/phrase_replace.hpp"

namespace vasana {

TEST_CASE("a wrong phrase is replaced where it stands as written, every time it stands there") {
  CHECK(replace_phrase("Postgres runs on RDS in us-east-2.", "us-east-2", "us-west-2") ==
        std::optional<std::string>("Postgres runs on RDS in us-west-2."));
  CHECK(replace_phrase("7:42 pickup; be there by 7:42", "7:42", "7:55") ==
        std::optional<std::string>("7:55 pickup; be there by 7:55"));
  // Punctuation inside the phrase is kept as the correction gives it.
  CHECK(replace_phrase("the fee is $45.", "$45", "$50") == std::optional<std::string>("the fee is $50."));
}

TEST_CASE("a wrong phrase written otherwise is found as a run of words, and a near miss is not") {
  CHECK(replace_phrase("Postgres runs in US-East-2 now", "us east 2", "us-west-2") ==
        std::optional<std::string>("Postgres runs in us-west-2 now"));
  CHECK(replace_phrase("Grandma reacts to Penicillin, badly", "penicillin", "sulfa antibiotics") ==
        std::optional<std::string>("Grandma reacts to sulfa antibiotics, badly"));
  // Negative controls: words out of order, a longer word that only starts the same, no words.
  CHECK_FALSE(replace_phrase("east us 2", "us east 2", "x"));
  CHECK_FALSE(replace_phrase("penicillins are fine", "penicillin", "x"));
  CHECK_FALSE(replace_phrase("anything", " -- ", "x"));
  CHECK_FALSE(replace_phrase("", "word", "x"));
}

}  // namespace vasana
