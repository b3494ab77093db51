#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "replica/hash_embedder.hpp"
#include "store/vector_space.hpp"  // the test only: replica must not depend on store

namespace vasana {
namespace {

float dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
  return float(s);
}

std::vector<float> embed(const std::string& text) {
  auto v = HashEmbedder().embed(text);
  REQUIRE(v.ok());
  return *v;
}

}  // namespace

TEST_CASE("the built-in embedder names the store's default vector space", "[semantic]") {
  const VectorSpace space;
  CHECK(space.model == kHashModel);
  CHECK(space.dim == kHashDim);
  CHECK(space.text_format == kHashTextFormat);
  CHECK(space.id() == kHashSpaceId);
  CHECK(HashEmbedder().space_id() == space.id());
  CHECK(HashEmbedder(128).space_id() != space.id());  // another dimension is another space
}

TEST_CASE("feature hashing is FNV-1a 64, the published function", "[semantic]") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);
  CHECK(fnv1a64("bar", fnv1a64("foo")) == fnv1a64("foobar"));  // it streams
}

TEST_CASE("the embedder is deterministic, gives unit vectors and pins its output", "[semantic]") {
  const auto a = embed("The deploy script restarts the web server");
  REQUIRE(a.size() == 384);
  CHECK(a == embed("The deploy script restarts the web server"));
  CHECK(dot(a, a) == Approx(1.0).epsilon(1e-6));
  // Pinned values: a change here changes vasana-hash-v1/384/1 and needs a new text format.
  const auto p = embed("hello world");
  // The words "hello" and "world" land on 260 and 339 (weight 1), their bigram on 274 (0.7), a
  // character 4-gram on 106 (0.35); 21 features in all, no collision.
  CHECK(p[260] == Approx(-0.494166225).margin(1e-6));
  CHECK(p[339] == Approx(-0.494166225).margin(1e-6));
  CHECK(p[274] == Approx(-0.345916361).margin(1e-6));
  CHECK(p[106] == Approx(0.17295818).margin(1e-6));
  CHECK(std::count_if(p.begin(), p.end(), [](float x) { return x != 0; }) == 21);
  // Negative control: another text gives another vector.
  CHECK(embed("hello there") != p);
}

TEST_CASE("case and punctuation do not change the embedding, word order does a little", "[semantic]") {
  const auto a = embed("Deploy the server!");
  CHECK(a == embed("deploy   the server"));
  const auto swapped = embed("the server deploy");
  CHECK(swapped != a);
  CHECK(dot(a, swapped) > 0.8f);  // same words, different bigrams
}

TEST_CASE("similar texts are closer than unrelated ones", "[semantic]") {
  const auto q = embed("restart the web server after deploying");
  const auto similar = embed("the deploy script restarts the web server");
  const auto unrelated = embed("my sister likes green tea with honey");
  CHECK(dot(q, similar) > 0.3f);
  CHECK(dot(q, unrelated) < 0.1f);
  CHECK(dot(q, similar) > dot(q, unrelated) + 0.2f);
  // Character n-grams relate forms of one word, not unrelated words.
  CHECK(dot(embed("deployment"), embed("deploying")) > dot(embed("deployment"), embed("banana")) + 0.2f);
}

TEST_CASE("non-ASCII words are embedded by code point and only ASCII letters are lowercased", "[semantic]") {
  const auto a = embed("Grüße aus München");
  CHECK(dot(a, a) == Approx(1.0).epsilon(1e-6));
  CHECK(a == embed("GRüße AUS MüNCHEN"));
  CHECK(embed("Über") != embed("über"));
  CHECK(dot(a, embed("München")) > dot(a, embed("Hamburg")) + 0.2f);
}

TEST_CASE("text with no words is refused, a single word is not", "[semantic]") {
  for (const char* text : {"", "   ", "?!... --- ;"}) {
    auto v = HashEmbedder().embed(text);
    REQUIRE(!v.ok());
    CHECK(v.status().code() == Code::invalid_argument);
  }
  CHECK(HashEmbedder().embed("a").ok());
  CHECK(HashEmbedder().embed("x").ok());
}

TEST_CASE("a client vector of the wrong dimension is refused naming both numbers", "[semantic]") {
  auto wrong = check_client_vector({1, 2, 3}, 384);
  REQUIRE(!wrong.ok());
  CHECK(wrong.status().code() == Code::invalid_argument);
  CHECK(wrong.status().message() == "vector has 3 dimensions; the store's vector space has 384");

  std::vector<float> v(384, 0.0f);
  v[0] = 3;
  v[1] = 4;
  auto right = check_client_vector(v, 384);
  REQUIRE(right.ok());
  CHECK((*right)[0] == Approx(0.6f));
  CHECK((*right)[1] == Approx(0.8f));

  CHECK(!check_client_vector(std::vector<float>(384, 0.0f), 384).ok());  // no direction
  v[7] = std::nanf("");
  auto nan = check_client_vector(v, 384);
  REQUIRE(!nan.ok());
  CHECK(nan.status().message().find("value 7") != std::string::npos);
  v[7] = INFINITY;
  CHECK(!check_client_vector(v, 384).ok());
}

}  // namespace vasana
