#include "actors/forked_digest.hpp"

#include "actors/forked_child.hpp"

namespace vasana {

StateDigest forked_digest(const RecallEngine& engine, double* held_ms,
                          const std::function<void(const ReplicaState&)>& also) {
  StateDigest d;
  const ReplicaState* held = nullptr;
  Status st = run_in_forked_child(
      [&](const std::function<void()>& fork_here) {
        engine.read([&](const ReplicaState& state) {
          if (also) also(state);
          held = &state;
          fork_here();
        });
      },
      [&](PipeWriter& w) {
        const Hash256 digest = held->digest();
        w.raw(digest.data(), digest.size());
        w.u64(held->applied().size());
        for (const auto& [writer, seqno] : held->applied()) {
          w.u64(writer.value);
          w.u64(seqno.value);
        }
        return true;
      },
      [&](PipeReader& r) {
        uint64_t n = 0;
        if (!r.raw(d.digest.data(), d.digest.size()) || !r.u64(&n) || n > (uint64_t{1} << 32)) return false;
        for (uint64_t i = 0; i < n; ++i) {
          uint64_t writer = 0, seqno = 0;
          if (!r.u64(&writer) || !r.u64(&seqno)) return false;
          d.applied[InstanceId{writer}] = Seqno(seqno);
        }
        return true;
      },
      std::chrono::seconds(20), "its answer does not parse", held_ms);
  if (st.ok()) return d;
  return digest_in_process(engine, also);
}

}  // namespace vasana
