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

TEST_CASE("an export line gives a memory without a ref its id as ref, and marks a deleted one, which import reads back") {
  MemoryView v = view();
  v.ref.clear();
  v.deleted = true;
  const std::string line = memory_export_line(v, false);
  CHECK(line.find("\"ref\":\"9f3c2a1b4d5e6f70-42\"") != std::string::npos);
  CHECK(line.find("\"pinned\":true,\"deleted\":true}") != std::string::npos);
  MemoryLineExtras extras;
  REQUIRE(memory_from_json_line(line, "copy", InputLimits{}, &extras).ok());
  CHECK(extras.deleted);
  MemoryLineExtras live;
  REQUIRE(memory_from_json_line(memory_export_line(view(), false), "copy", InputLimits{}, &live).ok());
  CHECK_FALSE(live.deleted);
  CHECK_THAT(memory_from_json_line("{\"text\":\"t\",\"ref\":\"r\",\"deleted\":1}", "w", InputLimits{}).status().message(),
             Catch::Contains("deleted must be true or false"));
  // Negative controls on the new fields: wrong types and values are refused, naming the field.
  CHECK_THAT(memory_from_json_line("{\"text\":\"t\",\"ref\":\"r\",\"confidence\":2}", "w", InputLimits{}).status().message(),
             Catch::Contains("confidence"));
  CHECK_THAT(memory_from_json_line("{\"text\":\"t\",\"ref\":\"r\",\"pinned\":1}", "w", InputLimits{}).status().message(),
             Catch::Contains("pinned"));
  CHECK_THAT(memory_from_json_line("{\"text\":\"t\",\"ref\":\"r\",\"status\":\"gone\"}", "w", InputLimits{}).status().message(),
             Catch::Contains("unknown status 'gone'"));
}

TEST_CASE("an export line carries earlier versions when the view has them, and import reads them back") {
  MemoryView v = view();
  v.versions = {{"first \"draft\"", 1'735'689'600'000}, {"second draft", 1'735'689'600'001}};
  const std::string line = memory_export_line(v, false);
  CHECK(line.find("\"pinned\":true,\"versions\":[{\"text\":\"first \\\"draft\\\"\"},{\"text\":\"second draft\"}]}") !=
        std::string::npos);
  const std::string with_ids = memory_export_line(v, true);
  CHECK(with_ids.find("{\"text\":\"second draft\",\"recorded_at\":\"2025-01-01T00:00:00.001Z\"}") != std::string::npos);
  for (const std::string& l : {line, with_ids}) {
    MemoryLineExtras extras;
    auto m = memory_from_json_line(l, "copy", InputLimits{}, &extras);
    REQUIRE(m.ok());
    CHECK(m->text == v.text);
    CHECK(extras.versions == std::vector<std::string>{"first \"draft\"", "second draft"});
  }
  // A line without them has none; malformed ones are refused, naming what is wrong.
  MemoryLineExtras none;
  REQUIRE(memory_from_json_line(memory_export_line(view(), false), "copy", InputLimits{}, &none).ok());
  CHECK(none.versions.empty());
  const std::string head = "{\"text\":\"t\",\"ref\":\"r\",\"versions\":";
  CHECK_THAT(memory_from_json_line(head + "\"a\"}", "w", InputLimits{}).status().message(), Catch::Contains("versions must be an array"));
  CHECK_THAT(memory_from_json_line(head + "[{\"text\":\"\"}]}", "w", InputLimits{}).status().message(),
             Catch::Contains("versions[0]: text"));
  CHECK_THAT(memory_from_json_line(head + "[{\"text\":\"a\",\"when\":1}]}", "w", InputLimits{}).status().message(),
             Catch::Contains("versions: unknown field 'when'"));
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
