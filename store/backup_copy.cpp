#include "store/backup_copy.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <system_error>

#include "store/backup_temp_folder.hpp"
#include "store/checkpoint_set_aside.hpp"
#include "store/file_access.hpp"
#include "store/file_io.hpp"
#include "store/hybrid_clock.hpp"
#include "store/restore_marker.hpp"
#include "store/segment_reader.hpp"
#include "store/writer_dirs.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

namespace fs = std::filesystem;

namespace {

// Top-level entries of a data directory that belong to the running process, not to its data.
bool process_entry(const std::string& name) {
  return name == "LOCK" || name == "client.endpoint" || name == "client.sock";
}

struct WriterPlan {
  WriterDir dir;
  std::vector<SegmentFile> segments;
};

// Creates path (which must not exist) holding bytes, and fsyncs it.
Status write_new_file(const std::string& path, std::string_view bytes) {
  auto f = posix_file_system().create(path);
  if (!f.ok()) return f.status();
  Status s = f.value()->append(bytes);
  if (s.ok()) s = f.value()->sync();
  return s;
}

Status make_dir(const std::string& path) {
  Status s = make_private_dirs(path);
  if (s.ok()) s = set_mode(path, private_dir_mode());
  return s;
}

Status corruption_at(const WriterDir& w, const SegmentFile& f, const SegmentScan& scan) {
  return Status::Corruption("writer " + to_hex(w.instance) + ": segment " + std::to_string(f.index.value) + " (" +
                            f.path + ") is " + segment_end_name(scan.end) + " at offset " +
                            std::to_string(scan.problem_offset) + ": " + scan.problem);
}

// Copies one writer's verified stream from plan into dest_dir (which exists).
Status copy_writer(const WriterPlan& plan, const Identity& id, const std::string& dest_dir, BackupWriter* out,
                   BackupProgress* progress, const BackupProgressFn& report) {
  ScanExpect expect;
  expect.instance = plan.dir.instance;
  expect.first_seqno = Seqno(1);
  expect.vector_space = id.vector_space;
  for (size_t i = 0; i < plan.segments.size(); ++i) {
    const SegmentFile& f = plan.segments[i];
    if (f.index != SegmentIndex(i))
      return Status::Corruption("writer " + to_hex(plan.dir.instance) + ": segment " + std::to_string(i) +
                                " is missing (the next file is " + f.path + ")");
    auto bytes = read_whole_file(f.path);
    if (!bytes.ok()) return bytes.status();
    const bool last = i + 1 == plan.segments.size();
    expect.index = f.index;
    // Only the last segment can be growing: an incomplete record at its end is an append in
    // progress (or the torn write of a process that died), not part of the stream yet.
    expect.tail_may_be_torn = last;
    SegmentScan scan = scan_segment(*bytes, expect);
    if (scan.end != SegmentEnd::sealed && scan.end != SegmentEnd::open && scan.end != SegmentEnd::torn_tail)
      return corruption_at(plan.dir, f, scan);
    if (scan.end == SegmentEnd::torn_tail) out->left_out_bytes = bytes->size() - scan.verified_bytes;
    progress->bytes_done += f.size;
    ++progress->segments_done;
    // A segment whose header is still being written holds nothing of the stream yet.
    if (scan.verified_bytes > 0) {
      Status s = write_new_file(dest_dir + "/" + segment_file_name(f.index),
                                std::string_view(*bytes).substr(0, scan.verified_bytes));
      if (!s.ok()) return s;
      ++out->segments;
      out->bytes += scan.verified_bytes;
    }
    for (const RecordRef& r : scan.records) {
      expect.first_seqno = Seqno(r.seqno.value + 1);
      expect.chain_head = r.hash;
      expect.min_ts = r.ts;
      out->last_seqno = r.seqno;
    }
    out->records += scan.records.size();
    if (report) report(*progress);
  }
  return sync_directory(dest_dir);
}

// Copies the regular files and folders under from into to (which exists), fsyncing each.
Status copy_tree(const std::string& from, const std::string& to, uint64_t* files) {
  std::error_code ec;
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      Status s = make_dir(to + "/" + name);
      if (s.ok()) s = copy_tree(it->path().string(), to + "/" + name, files);
      if (!s.ok()) return s;
    } else if (it->is_regular_file(type_ec)) {
      auto bytes = read_whole_file(it->path().string());
      if (!bytes.ok()) return bytes.status();
      Status s = write_new_file(to + "/" + name, *bytes);
      if (!s.ok()) return s;
      ++*files;
    }
  }
  if (ec) return Status::IoError("cannot list " + from + ": " + ec.message());
  return sync_directory(to);
}

// The copy is read back and verified as `vasana verify` would: every writer's stream whole,
// ending exactly where the copy was meant to end.
Status verify_copy(const DataDir& copy, const Identity& id, const std::vector<BackupWriter>& writers) {
  for (const BackupWriter& w : writers) {
    auto scan = scan_writer(copy.writer_dir(w.instance), w.instance, id.vector_space, w.own, nullptr);
    if (!scan.ok()) return scan.status();
    if (scan->stopped_at)
      return Status::IoError("the copy of writer " + to_hex(w.instance) + " does not verify: " +
                             scan->describe_problem());
    if (scan->records != w.records || scan->last_seqno != w.last_seqno)
      return Status::IoError("the copy of writer " + to_hex(w.instance) + " ends at seqno " +
                             std::to_string(scan->last_seqno.value) + ", not " + std::to_string(w.last_seqno.value));
  }
  return Status::Ok();
}

struct DestCheck {
  std::string path;    // absolute, normalised
  std::string parent;
  bool exists = false;  // as an empty folder
};

Result<DestCheck> check_dest(const DataDir& source, const std::string& dest) {
  std::error_code ec;
  DestCheck d;
  fs::path abs = fs::absolute(dest, ec).lexically_normal();
  if (ec) return Status::InvalidArgument("cannot resolve " + dest + ": " + ec.message());
  if (abs.filename().empty()) abs = abs.parent_path();  // "DEST/" names DEST
  d.path = abs.string();
  d.parent = abs.parent_path().string();
  if (!fs::is_directory(d.parent, ec))
    return Status::InvalidArgument("the folder " + d.parent + " that is to hold " + dest + " does not exist");
  const fs::path src = fs::weakly_canonical(source.root, ec);
  const fs::path dst = fs::weakly_canonical(abs, ec);
  const std::string s = src.string() + "/", t = dst.string() + "/";
  if (t.compare(0, s.size(), s) == 0) return Status::InvalidArgument(dest + " is inside the data directory " + source.root);
  auto st = fs::symlink_status(abs, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) return Status::InvalidArgument(dest + " exists and is not a folder");
    if (!fs::is_empty(abs, ec) || ec) return Status::InvalidArgument(dest + " exists and is not empty");
    d.exists = true;
  }
  return d;
}

// Moves the finished copy to dest: over an empty folder by rename(2), else only if nothing
// appeared at dest meanwhile.
Status put_in_place(const std::string& tmp, const DestCheck& d) {
  int rc = d.exists ? ::rename(tmp.c_str(), d.path.c_str())
                    : ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, d.path.c_str(), RENAME_NOREPLACE);
  if (rc != 0)
    return Status::IoError("cannot rename " + tmp + " to " + d.path + ": " + std::strerror(errno));
  return sync_directory(d.parent);
}

}  // namespace

Result<BackupReport> backup_data_dir(const DataDir& source, const std::string& dest,
                                     const BackupProgressFn& progress) {
  auto id = load_identity(source);
  if (!id.ok()) {
    if (id.status().code() == Code::not_found) return Status::InvalidArgument(id.status().message());
    return id.status();
  }
  auto d = check_dest(source, dest);
  if (!d.ok()) return d.status();

  BackupReport report;
  report.identity = *id;
  report.dest = d->path;

  // Plan: every writer's segment files as they are now.
  std::vector<std::string> ignored;
  auto writers = list_writer_dirs(source, &ignored);
  if (!writers.ok()) return writers.status();
  for (const auto& name : ignored)
    report.notes.push_back("left out " + source.writers_dir() + "/" + name + ": not a writer folder");
  std::vector<WriterPlan> plans;
  BackupProgress prog;
  for (const WriterDir& w : *writers) {
    auto segs = list_segment_files(w.path);
    if (!segs.ok()) return segs.status();
    for (const SegmentFile& f : *segs) prog.bytes_total += f.size;
    prog.segments_total += segs->size();
    plans.push_back(WriterPlan{w, std::move(*segs)});
  }
  std::error_code ec;
  for (fs::directory_iterator it(source.root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "identity" || name == "writers" || name == "quarantine" || process_entry(name)) continue;
    if (fs::path(restore_marker_path(source)).filename() == name) continue;  // the copy gets its own
    if (name == "checkpoint")
      report.notes.push_back("left out checkpoint/: a node started from this backup rebuilds its state by "
                             "replaying every segment");
    else if (name == "archive")
      report.notes.push_back("left out archive/: a node started from this backup writes the earlier texts and "
                             "the clients' vectors again as it replays the segments");
    else if (is_set_aside_checkpoint(name))
      report.notes.push_back("left out " + name + ": a damaged checkpoint the node set aside");
    else
      report.notes.push_back("left out " + source.root + "/" + name + ": not part of a vasana data directory");
  }
  if (ec) return Status::IoError("cannot list " + source.root + ": " + ec.message());

  auto leftovers = clear_backup_leftovers(d->path);
  if (!leftovers.ok()) return leftovers.status();
  for (const auto& p : leftovers->removed) report.notes.push_back("removed " + p + ", left by a backup that did not finish");
  for (const auto& p : leftovers->kept) report.notes.push_back("left " + p + ", a backup's temporary folder; remove it by hand");
  auto tmp = BackupTempFolder::create(d->path);
  if (!tmp.ok()) return tmp.status();
  const DataDir copy{tmp->path()};
  Status s = set_mode(copy.root, private_dir_mode());
  if (s.ok()) {
    auto identity = read_whole_file(source.identity_path());
    s = identity.ok() ? write_new_file(copy.identity_path(), *identity) : identity.status();
  }
  if (s.ok()) s = make_dir(copy.writers_dir());
  for (const WriterPlan& plan : plans) {
    if (!s.ok()) break;
    BackupWriter bw;
    bw.instance = plan.dir.instance;
    bw.own = bw.instance == id->instance;
    const std::string wdir = copy.writer_dir(bw.instance);
    s = make_dir(wdir);
    if (s.ok()) s = copy_writer(plan, *id, wdir, &bw, &prog, progress);
    report.segments += bw.segments;
    report.bytes += bw.bytes;
    report.writers.push_back(bw);
  }
  if (s.ok()) s = sync_directory(copy.writers_dir());
  if (s.ok()) s = make_dir(copy.quarantine_dir());
  if (s.ok() && fs::is_directory(source.quarantine_dir(), ec))
    s = copy_tree(source.quarantine_dir(), copy.quarantine_dir(), &report.quarantine_files);
  if (s.ok()) s = sync_directory(copy.quarantine_dir());
  if (s.ok()) {
    report.marker.backup_ms = system_wall_ms();
    report.marker.source = fs::absolute(source.root, ec).lexically_normal().string();
    for (const BackupWriter& w : report.writers)
      if (w.own) report.marker.own_last_seqno = w.last_seqno;
    s = write_restore_marker(copy, report.marker);
  }
  if (s.ok()) s = sync_directory(copy.root);
  if (s.ok()) s = verify_copy(copy, *id, report.writers);
  if (s.ok()) s = put_in_place(tmp->path(), *d);
  if (!s.ok()) return s;
  tmp->keep();
  return report;
}

}  // namespace vasana
