// `vasana log --data DIR`: every verified op as one JSON object per line, writer by writer,
// each writer's ops in seqno order.
#include <cstdio>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "store/writer_dirs.hpp"
#include "protocol/json_text.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "protocol/redaction.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

int cmd_log(const Words& words) {
  auto args = parse_args(words, {"data", "config", "writer"}, {});
  if (!args.ok()) return fail(kExitUsage, "log: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "log: unexpected argument '" + args->positional[0] + "'");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto root = resolve_data_dir(*args, *cfg);
  if (!root) return fail(kExitUsage, "log: --data DIR is required (or set VASANA_DATA)");
  DataDir dir{*root};
  auto id = load_identity(dir);
  if (!id.ok()) return fail(kExitUsage, "log: " + id.status().message());
  std::optional<InstanceId> only;
  if (auto w = args->get("writer")) {
    only = parse_instance_hex(*w);
    if (!only) return fail(kExitUsage, "log: --writer must be 16 hex digits (got '" + *w + "')");
  }
  auto writers = list_writer_dirs(dir, nullptr);
  if (!writers.ok()) return fail(kExitFailed, "log: " + writers.status().message());

  bool damaged = false;
  for (const auto& w : *writers) {
    if (only && *only != w.instance) continue;
    const std::string writer_hex = to_hex(w.instance);
    auto scan = scan_writer(w.path, w.instance, id->vector_space, w.instance == id->instance, [&](const RecordRef& r) {
      JsonObject o;
      o.str("writer", writer_hex).unum("seqno", r.seqno.value).unum("effective_ts", r.ts.value);
      o.str("effective_time", format_time_ms(static_cast<int64_t>(r.ts.physical_ms())));
      o.str("op", op_type_label(r.op_type));
      if (r.op_type == static_cast<uint16_t>(OpType::put_memory))
        o.str("id", MemoryId{w.instance, r.seqno}.to_string());
      o.str("hash", to_hex(r.hash));
      auto fields = op_fields_json(r.op_type, r.payload);
      o.raw("fields", fields.ok() ? *fields : "null");
      std::printf("%s\n", o.done().c_str());
    });
    if (!scan.ok()) return fail(kExitFailed, "log: " + scan.status().message());
    if (!scan->healthy()) {
      damaged = true;
      fail(kExitFailed, "log: writer " + writer_hex + " stops early: " + scan->describe_problem());
    }
  }
  if (only && std::none_of(writers->begin(), writers->end(), [&](const WriterDir& w) { return w.instance == *only; }))
    return fail(kExitFailed, "log: no writer " + to_hex(*only) + " in " + dir.writers_dir());
  return damaged ? kExitFailed : kExitOk;
}

}  // namespace vasana
