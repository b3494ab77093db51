// `vasana verify [--deep] --data DIR` (or, as before, `vasana verify [--deep] DIR`; without
// either, $VASANA_DATA): offline check of every writer's segments; with --deep also of the state
// checkpoint against them (cli/checkpoint_check.hpp). Redacted records (docs/erasure.md) verify
// like any other; each writer's count of them is shown, and a marker whose memory has no erase op
// in the directory is named (its erase has not arrived yet, or was lost). Changes nothing on disk.
#include <cstdio>
#include <map>
#include <set>

#include "cli/checkpoint_check.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/redaction.hpp"
#include "store/writer_dirs.hpp"
#include "store/stream_repair.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

int cmd_verify(const Words& words) {
  static const char* kVerifyUsage = "verify: usage: vasana verify [--deep] --data DIR (or vasana verify [--deep] DIR)";
  auto args = parse_args(words, {"data"}, {"deep"});
  if (!args.ok()) return fail(kExitUsage, "verify: " + args.status().message());
  if (args->positional.size() > 1) return fail(kExitUsage, kVerifyUsage);
  if (args->positional.size() == 1 && args->get("data"))
    return fail(kExitUsage, "verify: give the data directory once, as --data DIR or as DIR, not both");
  auto where = args->positional.empty() ? resolve_data_dir(*args, NodeConfig{}) : args->positional[0];
  if (!where) return fail(kExitUsage, std::string(kVerifyUsage) + "; or set VASANA_DATA");
  DataDir dir{*where};
  auto id = load_identity(dir);
  if (!id.ok()) return fail(kExitUsage, "verify: " + id.status().message());
  std::vector<std::string> ignored;
  auto writers = list_writer_dirs(dir, &ignored);
  if (!writers.ok()) return fail(kExitFailed, "verify: " + writers.status().message());

  bool bad = false;
  std::set<MemoryId> erased;                  // memories an erase op in the directory names
  std::map<MemoryId, uint64_t> redacted_of;  // redacted records per memory their marker names
  for (const auto& w : *writers) {
    const bool own = w.instance == id->instance;
    uint64_t redacted = 0;
    auto scan = scan_writer(w.path, w.instance, id->vector_space, own, [&](const RecordRef& r) {
      if (is_redacted_op_type(r.op_type)) {
        ++redacted;
        if (auto m = decode_redaction_marker(r.op_type, r.payload); m.ok()) ++redacted_of[m->memory];
      } else if (r.op_type == static_cast<uint16_t>(OpType::erase_memory)) {
        if (auto op = decode_op(r.op_type, r.payload); op.ok()) erased.insert(std::get<EraseMemoryOp>(*op).memory);
      }
    });
    if (!scan.ok()) return fail(kExitFailed, "verify: " + scan.status().message());
    size_t sealed = 0;
    for (const auto& s : scan->segments) sealed += s.end == SegmentEnd::sealed;
    const char* chain = scan->healthy() ? "chain ok" : "CHAIN BROKEN";
    std::printf("writer %s%s: %llu records (%llu redacted), last seqno %llu, %zu segments (%zu sealed), %s\n",
                to_hex(w.instance).c_str(), own ? " (own)" : "", static_cast<unsigned long long>(scan->records),
                static_cast<unsigned long long>(redacted), static_cast<unsigned long long>(scan->last_seqno.value),
                scan->segments.size(), sealed, chain);
    if (scan->stopped_at) {
      const SegmentSummary& s = scan->segments[*scan->stopped_at];
      if (s.end == SegmentEnd::torn_tail) {
        std::printf("  segment %llu: torn tail of %llu bytes at offset %llu (%s); the node truncates it on start\n",
                    static_cast<unsigned long long>(s.index.value),
                    static_cast<unsigned long long>(s.file_bytes - s.verified_bytes),
                    static_cast<unsigned long long>(s.verified_bytes), s.problem.c_str());
      } else {
        bad = true;
        std::printf("  %s\n", scan->describe_problem().c_str());
        size_t unverified = scan->segments.size() - *scan->stopped_at - 1;
        if (unverified)
          std::printf("  %zu later segment(s) not verified: the stream cannot be followed past the damage\n",
                      unverified);
      }
    }
    if (own) {
      for (const auto& q : quarantined_segments(dir, w.instance)) {
        bad = true;
        std::printf("  quarantined: %s/%s\n", dir.quarantine_dir().c_str(), q.c_str());
      }
    }
  }
  for (const auto& [memory, n] : redacted_of)
    if (!erased.count(memory))
      std::printf("note: %llu redacted record(s) of memory %s, whose erase op this directory does not hold yet\n",
                  static_cast<unsigned long long>(n), memory.to_string().c_str());
  if (args->has("deep")) {
    DeepCheck deep = deep_check(dir, *id, *writers);
    for (const auto& l : deep.lines) std::printf("%s\n", l.c_str());
    for (const auto& p : deep.problems) std::printf("  %s\n", p.c_str());
    if (!deep.checkpoint && deep.ok) std::printf("checkpoint: none\n");
    if (!deep.ok) {
      bad = true;
      std::printf("verify: CHECKPOINT MISMATCH\n");
    }
  }
  for (const auto& name : ignored) std::printf("note: %s/%s is not a writer folder; ignored\n", dir.writers_dir().c_str(), name.c_str());
  std::printf("%s\n", bad ? "verify: CORRUPTION FOUND" : "verify: ok");
  return bad ? kExitFailed : kExitOk;
}

}  // namespace vasana
