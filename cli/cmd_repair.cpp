// `vasana repair --data DIR [--from DIR]... [--accept-loss]`: offline repair of the node's own
// writer stream after corruption left it read-only (store/own_repair.hpp). The node must be
// stopped (the command takes the data directory's lock).
//
// The verified prefix stays; everything after it is kept in quarantine/. Each --from names
// another node's data directory (a peer's, copied or mounted, or a shared-directory sibling);
// its verified copy of this writer's stream is checked against the prefix and restores what it
// holds further. The writer is made writable again (its quarantined segments move to
// quarantine/resolved/) when the sources named held everything they had of it, or when
// --accept-loss says that records no source holds are given up. A directory restored from a
// backup (store/restore_marker.hpp) is repaired the same way: its RESTORED marker goes when every
// --from was consulted, or with --accept-loss. So is a torn tail: the directory is marked before
// the tail is cut (the cut record may be one that other nodes hold). Exit 0 when the stream is
// writable at the end, 1 when it is still read-only (or marked), 2 on bad usage.
#include <cstdio>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "store/own_repair.hpp"
#include "store/restore_marker.hpp"
#include "store/stream_repair.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

namespace {

void print_actions(std::vector<std::string>* actions) {
  for (const std::string& a : *actions) std::printf("repair: %s\n", a.c_str());
  actions->clear();
}

// A healthy stream restored from a backup: its marker goes when every source named was consulted
// (each held no more of the stream, or gave what it held), or when --accept-loss gives up what
// other nodes may hold. Otherwise the node fetches from its peers on its next start.
int finish_restored(const DataDir& dir, const std::string& writer, Seqno last, size_t named, size_t consulted,
                    bool accept_loss) {
  if (!accept_loss && (named == 0 || consulted < named)) {
    std::printf("repair: the node fetches writer %s's records after seqno %llu from its peers when it starts, and "
                "writes only then; name the data directory of every node that may hold them with --from, or write on "
                "without them with --accept-loss\n",
                writer.c_str(), static_cast<unsigned long long>(last.value));
    return kExitFailed;
  }
  Status s = remove_restore_marker(dir);
  if (!s.ok()) return fail(kExitFailed, "repair: " + s.message());
  const std::string why = accept_loss && (named == 0 || consulted < named)
                              ? "records after seqno " + std::to_string(last.value) +
                                    " that other nodes may hold are given up (--accept-loss)"
                              : "every --from consulted";
  std::printf("repair: removed %s: %s\n", restore_marker_path(dir).c_str(), why.c_str());
  std::printf("repair: writer %s verifies up to seqno %llu and is writable on the next start\n", writer.c_str(),
              static_cast<unsigned long long>(last.value));
  return kExitOk;
}

}  // namespace

int cmd_repair(const Words& words) {
  auto args = parse_args(words, {"data", "from"}, {"accept-loss"});
  if (!args.ok()) return fail(kExitUsage, "repair: " + args.status().message());
  auto data = args->get("data");
  if (!data || !args->positional.empty())
    return fail(kExitUsage, "repair: usage: vasana repair --data DIR [--from DIR]... [--accept-loss]");
  DataDir dir{*data};
  auto id = load_identity(dir);
  if (!id.ok()) return fail(kExitUsage, "repair: " + id.status().message());
  auto lock = DirLock::acquire(dir);
  if (!lock.ok())
    return fail(kExitFailed, "repair: " + lock.status().message() +
                                 (lock.status().code() == Code::busy ? " (stop the node first)" : ""));

  // A torn tail is cut only after the directory is marked: the cut record may be one that peers
  // hold, so the stream is then repaired like a restored one (--from, or --accept-loss).
  auto rec = recover_own_stream(dir, *id, nullptr, /*mark_torn_cut=*/true);
  if (!rec.ok()) return fail(kExitFailed, "repair: " + rec.status().message());
  std::vector<std::string> actions = rec->actions;
  print_actions(&actions);
  const std::string writer = to_hex(id->instance);
  auto marker = read_restore_marker(dir);
  if (!marker.ok()) return fail(kExitFailed, "repair: " + marker.status().message());
  const bool from_backup = marker->has_value();
  if (rec->writable && !from_backup) {
    std::printf("repair: writer %s (own) verifies up to seqno %llu; nothing to repair\n", writer.c_str(),
                static_cast<unsigned long long>(rec->scan.last_seqno.value));
    return kExitOk;
  }
  if (rec->writable)
    std::printf("repair: writer %s (own) verifies up to seqno %llu; %s: other nodes may hold later records\n",
                writer.c_str(), static_cast<unsigned long long>(rec->scan.last_seqno.value),
                (*marker)->describe().c_str());
  else
    std::printf("repair: writer %s (own) is read-only: %s\n", writer.c_str(), rec->read_only_reason.c_str());
  Status s = set_aside_unverified(dir, *id, rec->scan, &actions);
  print_actions(&actions);
  if (!s.ok()) return fail(kExitFailed, "repair: " + s.message());
  auto ours = scan_writer(dir.writer_dir(id->instance), id->instance, id->vector_space, /*own=*/true, nullptr);
  if (!ours.ok()) return fail(kExitFailed, "repair: " + ours.status().message());
  if (!ours->healthy()) return fail(kExitFailed, "repair: the verified prefix does not verify: " + ours->describe_problem());
  const Seqno kept = ours->last_seqno;
  std::printf("repair: kept the verified prefix, seqno 1 to %llu\n", static_cast<unsigned long long>(kept.value));

  const auto sources = args->all("from");
  size_t consulted = 0;
  for (const std::string& root : sources) {
    DataDir source{root};
    if (!load_identity(source).ok()) return fail(kExitUsage, "repair: --from " + root + " is not a vasana data directory");
    auto r = restore_from_copy(dir, *id, *ours, source, &actions);
    print_actions(&actions);
    if (!r.ok()) return fail(kExitFailed, "repair: " + r.status().message());
    if (!r->restored) {
      std::printf("repair: %s\n", r->why_not.c_str());
      if (!r->other_history) ++consulted;
      continue;
    }
    ++consulted;
    ours = scan_writer(dir.writer_dir(id->instance), id->instance, id->vector_space, /*own=*/true, nullptr);
    if (!ours.ok()) return fail(kExitFailed, "repair: " + ours.status().message());
    if (!ours->healthy()) return fail(kExitFailed, "repair: the restored stream does not verify: " + ours->describe_problem());
  }

  const bool restored = ours->last_seqno > kept;
  const bool accept_loss = args->has("accept-loss");
  if (rec->writable) return finish_restored(dir, writer, ours->last_seqno, sources.size(), consulted, accept_loss);
  if (!restored && !accept_loss) {
    std::printf("repair: records after seqno %llu are lost unless another node holds them: name its data directory "
                "with --from, or give them up with --accept-loss\n",
                static_cast<unsigned long long>(kept.value));
    std::printf("repair: writer %s stays read-only\n", writer.c_str());
    return kExitFailed;
  }
  std::string note = restored ? "restored up to seqno " + std::to_string(ours->last_seqno.value) + " from " +
                                    std::to_string(consulted) + " other data director" + (consulted == 1 ? "y" : "ies")
                              : "";
  if (accept_loss) note += std::string(note.empty() ? "" : "; ") + "records after seqno " +
                           std::to_string(ours->last_seqno.value) + " given up (--accept-loss)";
  s = resolve_quarantine(dir, id->instance, note, &actions);
  print_actions(&actions);
  if (!s.ok()) return fail(kExitFailed, "repair: " + s.message());
  if (from_backup) {
    s = remove_restore_marker(dir);
    if (!s.ok()) return fail(kExitFailed, "repair: " + s.message());
  }
  std::printf("repair: writer %s verifies up to seqno %llu and is writable on the next start\n", writer.c_str(),
              static_cast<unsigned long long>(ours->last_seqno.value));
  return kExitOk;
}

}  // namespace vasana
