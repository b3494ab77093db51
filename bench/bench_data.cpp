#include "bench/bench_data.hpp"

#include "bench/synthetic_corpus.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "store/hybrid_clock.hpp"
#include "store/stream_repair.hpp"

namespace vasana {

namespace {

// id's own stream in dir, recovered and opened for appending, sealing segments at seal_bytes.
Result<std::unique_ptr<LogWriter>> open_own_stream(const DataDir& dir, const Identity& id, uint64_t seal_bytes) {
  auto rec = recover_own_stream(dir, id, nullptr, false);
  if (!rec.ok()) return rec.status();
  LogWriterOptions options;
  options.seal_bytes = seal_bytes;
  return LogWriter::open(posix_file_system(), dir.writer_dir(id.instance), id.instance, id.vector_space, rec->tail,
                         options, system_wall_ms());
}

}  // namespace

Status write_synthetic_memories(const DataDir& dir, const Identity& id, size_t n, uint64_t seal_bytes) {
  auto w = open_own_stream(dir, id, seal_bytes);
  if (!w.ok()) return w.status();
  SyntheticCorpus corpus;
  const uint64_t ms = system_wall_ms() - n;
  for (size_t i = 0; i < n; ++i) {
    MemoryInput m = corpus.memory();
    w.value()->stage(Hlc::make(ms + i, 0), static_cast<uint16_t>(OpType::put_memory), encode_put_memory(m));
    if (i % 4096 == 4095 || i + 1 == n) {
      Status s = w.value()->commit();
      if (s.ok()) s = w.value()->maybe_seal(system_wall_ms());
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status write_synthetic_updates(const DataDir& dir, const Identity& id, size_t n, size_t count, uint64_t seal_bytes) {
  if (count == 0 || count > n) return Status::InvalidArgument("updates: 1 to n memories");
  auto w = open_own_stream(dir, id, seal_bytes);
  if (!w.ok()) return w.status();
  SyntheticCorpus corpus;
  const uint64_t ms = system_wall_ms();
  for (size_t i = 0; i < count; ++i) {
    // Memory k*n/count + 1 (their puts are seqnos 1..n of this stream): spread over every realm.
    const MemoryId target{id.instance, Seqno(i * n / count + 1)};
    const OpValue op = UpdateContentOp{target, corpus.memory().text, false, {}};
    w.value()->stage(Hlc::make(ms + i, 0), static_cast<uint16_t>(op_type_of(op)), encode_op(op));
    if (i % 4096 == 4095 || i + 1 == count) {
      Status s = w.value()->commit();
      if (s.ok()) s = w.value()->maybe_seal(system_wall_ms());
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

}  // namespace vasana
