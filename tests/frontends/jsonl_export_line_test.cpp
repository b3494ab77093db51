// frontends/jsonl_memory.hpp: a memory's export line has its fields in a fixed order, a ref even when
// the memory has none, and reads back as an import line with every exported field.
#include <catch2/catch.hpp>

#include "frontends/jsonl_memory.hpp"
#include "frontends/memory_view_text.hpp"

namespace vasana {
namespace {

MemoryView view() {
  MemoryView v;
  v.id = MemoryId{InstanceId(0x9f3c2a1b4d5e6f70), Seqno(42)};
  v.realm = "work";
  v.kind = MemoryKind::episode;
  v.text = "café \"quoted\"\nsecond line";
  v.tags = {"a", "ü"};
  v.ref = "r1";
  v.status = MemoryStatus::archived;
  v.epistemic = Epistemic::model_inferred;
  v.confidence = 0.7f;
  v.pinned = true;
  v.valid_from_ms = 1'735'689'600'000;  // 2025-01-01
  v.recorded_at_ms = 1'750'000'000'000;
  return v;
}

TEST_CASE("an export line has its fields in a fixed order and reads back as the same memory") {
  const std::string line = memory_export_line(view(), false);
  CHECK(line ==
        "{\"text\":\"café \\\"quoted\\\"\\nsecond line\",\"ref\":\"r1\",\"kind\":\"episode\",\"tags\":[\"a\",\"ü\"],"
        "\"valid_from\":\"2025-01-01T00:00:00.000Z\",\"status\":\"archived\",\"epistemic\":\"model_inferred\","
        "\"confidence\":0.7,\"pinned\":true}");
  auto m = memory_from_json_line(line, "copy", InputLimits{});
  REQUIRE(m.ok());
  CHECK(m->realm == "copy");
  CHECK(m->text == view().text);
  CHECK(m->ref == "r1");
  CHECK(m->kind == "episode");
  CHECK(m->tags == view().tags);
  CHECK(m->valid_from_ms == view().valid_from_ms);
  CHECK(m->valid_to_ms == kOpenFuture);
  CHECK(m->status == "archived");
  CHECK(m->epistemic == "model_inferred");
  CHECK(m->confidence == 0.7f);
  CHECK(m->pinned);

  // With ids: id and recorded_at last, and an import reads past them.
  const std::string with_ids = memory_export_line(view(), true);
  CHECK(with_ids == line.substr(0, line.size() - 1) +
                        ",\"id\":\"9f3c2a1b4d5e6f70-42\",\"recorded_at\":\"2025-06-15T15:06:40.000Z\"}");
  CHECK(memory_from_json_line(with_ids, "copy", InputLimits{}).ok());
}

TEST_CASE("an export line gives a memory without a ref its id as ref, and marks a deleted one, which import refuses") {
  MemoryView v = view();
  v.ref.clear();
  v.deleted = true;
  const std::string line = memory_export_line(v, false);
  CHECK(line.find("\"ref\":\"9f3c2a1b4d5e6f70-42\"") != std::string::npos);
  CHECK(line.find("\"pinned\":true,\"deleted\":true}") != std::string::npos);
  auto m = memory_from_json_line(line, "copy", InputLimits{});
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.status().message(), Catch::Contains("a deleted memory cannot be imported"));
  // Negative controls on the new fields: wrong types and values are refused, naming the field.
  CHECK_THAT(memory_from_json_line("{\"text\":\"t\",\"ref\":\"r\",\"confidence\":2}", "w", InputLimits{}).status().message(),
             Catch::Contains("confidence"));
  CHECK_THAT(memory_from_json_line("{\"text\":\"t\",\"ref\":\"r\",\"pinned\":1}", "w", InputLimits{}).status().message(),
             Catch::Contains("pinned"));
  CHECK_THAT(memory_from_json_line("{\"text\":\"t\",\"ref\":\"r\",\"status\":\"gone\"}", "w", InputLimits{}).status().message(),
             Catch::Contains("unknown status 'gone'"));
}

TEST_CASE("a float is written as the shortest decimal that reads back as the same float") {
  CHECK(float_text(0.7f) == "0.7");
  CHECK(float_text(1.0f) == "1");
  CHECK(float_text(0.0f) == "0");
  CHECK(float_text(0.123456789f) == "0.12345679");
  for (float f : {0.1f, 0.3333333f, 1e-7f, 0.99999994f}) CHECK(std::strtof(float_text(f).c_str(), nullptr) == f);
}

}  // namespace
}  // namespace vasana
