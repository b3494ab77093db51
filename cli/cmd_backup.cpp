// `vasana backup [--data DIR] DEST`: a verified copy of a data directory, taken while its node
// runs or not (store/backup_copy.hpp). Exit 0 when DEST holds the backup, 1 when the source
// failed verification, a file operation failed or another backup to DEST is running (DEST is
// then as it was), 2 on bad usage
// (DEST exists and is not empty, DIR is not a data directory). DEST is marked restored
// (store/restore_marker.hpp).
#include <chrono>
#include <cstdio>
#include <unistd.h>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "store/backup_copy.hpp"

namespace vasana {

namespace {

double mib(uint64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

}  // namespace

int cmd_backup(const Words& words) {
  auto args = parse_args(words, {"data"}, {});
  if (!args.ok()) return fail(kExitUsage, "backup: " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, "backup: usage: vasana backup [--data DIR] DEST");
  auto dir = resolve_data_dir(*args, NodeConfig{});
  if (!dir) return fail(kExitUsage, "backup: --data DIR is required (or set VASANA_DATA)");

  // Progress: on a terminal a line redrawn per segment; otherwise a line every few seconds, so a
  // long copy shows in a log that it is moving.
  const bool tty = ::isatty(STDERR_FILENO);
  using Clock = std::chrono::steady_clock;
  auto last_line = Clock::now();
  bool drawn = false;
  auto progress = [&](const BackupProgress& p) {
    const bool done = p.segments_done == p.segments_total;
    if (!tty && !done && Clock::now() - last_line < std::chrono::seconds(5)) return;
    if (!tty && p.segments_total < 2) return;
    last_line = Clock::now();
    std::fprintf(stderr, "%sbackup: %llu/%llu segments, %.1f/%.1f MiB%s", tty ? "\r" : "",
                 static_cast<unsigned long long>(p.segments_done), static_cast<unsigned long long>(p.segments_total),
                 mib(p.bytes_done), mib(p.bytes_total), tty ? "" : "\n");
    drawn = true;
  };
  auto report = backup_data_dir(DataDir{*dir}, args->positional[0], progress);
  if (tty && drawn) std::fprintf(stderr, "\n");
  if (!report.ok()) {
    const bool usage = report.status().code() == Code::invalid_argument;
    return fail(usage ? kExitUsage : kExitFailed,
                "backup: " + report.status().message() + (usage ? "" : "; no backup was made"));
  }

  for (const std::string& note : report->notes) std::fprintf(stderr, "vasana: backup: %s\n", note.c_str());
  for (const BackupWriter& w : report->writers) {
    std::printf("writer %s%s: %llu records up to seqno %llu, %llu segments", to_hex(w.instance).c_str(),
                w.own ? " (own)" : "", static_cast<unsigned long long>(w.records),
                static_cast<unsigned long long>(w.last_seqno.value), static_cast<unsigned long long>(w.segments));
    if (w.left_out_bytes)
      std::printf(", %llu bytes of a record being appended left out",
                  static_cast<unsigned long long>(w.left_out_bytes));
    std::printf("\n");
  }
  std::printf("backup: %s -> %s: %llu segments, %.1f MiB, %llu quarantined files, verified\n", dir->c_str(),
              report->dest.c_str(), static_cast<unsigned long long>(report->segments), mib(report->bytes),
              static_cast<unsigned long long>(report->quarantine_files));
  std::printf("backup: marked %s: a node started from this backup first catches up its own writer's stream "
              "from its peers (records written after seqno %llu), and takes writes only once every configured peer "
              "and sibling was heard from and none holds more of it\n",
              restore_marker_path(DataDir{report->dest}).c_str(),
              static_cast<unsigned long long>(report->marker.own_last_seqno.value));
  std::fprintf(stderr,
               "vasana: backup: warning: the backup is writer %s, the same writer identity as %s. Use it only to "
               "restore that node (stop it, replace its data directory with the backup, start it). Never start it "
               "as a second node beside the original: two nodes writing as one writer fork its stream.\n",
               to_hex(report->identity.instance).c_str(), dir->c_str());
  return kExitOk;
}

}  // namespace vasana
