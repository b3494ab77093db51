#include "actors/writer_actor.hpp"

#include <chrono>
#include <vector>

namespace vasana {

namespace {

struct Waiter {
  StagedRecord record;
  std::function<void(const AppendResult&)> done;
};

struct WriterActorState {
  std::shared_ptr<WriterState> writer;
  std::vector<Waiter> waiting;  // staged, not yet durable: answered by the next flush
  bool flush_scheduled = false;
  static inline const char* name = "vasana.writer";

  WriterActorState() = default;
  WriterActorState(const WriterActorState&) = delete;
  // Staged records nobody flushed (the actor is going away) were never acknowledged.
  ~WriterActorState() {
    for (auto& w : waiting)
      w.done(AppendResult{Status::FailedPrecondition("the node stopped before the write was durable"), Seqno(), Hlc()});
  }

  void stage(AppendRequest& req) {
    auto staged = writer->stage(req.op_type, std::move(req.payload));
    if (!staged.ok()) {
      req.done(AppendResult{staged.status(), Seqno(), Hlc()});
      return;
    }
    // A request's ops stay together: no flush between them (the budget check comes after).
    if (req.follow_ups) {
      for (auto& op : req.follow_ups(staged->seqno)) {
        auto more = writer->stage(op.op_type, std::move(op.payload));
        if (!more.ok()) {
          // The writer stopped taking appends; what was staged of this request is never answered ok.
          req.done(AppendResult{more.status(), Seqno(), Hlc()});
          return;
        }
      }
    }
    waiting.push_back(Waiter{*staged, std::move(req.done)});
    if (writer->batch_full()) flush();
  }

  // Group commit: flush when nothing else waits in the mailbox (appends already queued join
  // this batch). Otherwise a flush message goes behind the queued ones, so a batch never waits
  // for an append that may not come.
  template <class Self>
  void flush_or_schedule(Self* self) {
    if (waiting.empty()) return;
    if (self->mailbox().empty()) {
      flush();
    } else if (!flush_scheduled) {
      flush_scheduled = true;
      self->send(self, flush_atom::value);
    }
  }

  // Commits the batch and answers every waiter from its outcome: never before the sync; then
  // hands the records to the subscribers.
  void flush() {
    if (waiting.empty()) return;
    Status s = writer->flush();
    for (auto& w : waiting) {
      if (s.ok())
        w.done(AppendResult{Status::Ok(), w.record.seqno, w.record.ts});
      else
        w.done(AppendResult{s, Seqno(), Hlc()});
    }
    waiting.clear();
    // The replica gets the records after the answers went out (WriterState: the acknowledged
    // seqno moved before them, so a read after an answer still waits for the apply).
    writer->hand_off();
    // Sealing comes after the answers, so it never delays an acknowledgement. If it fails, the
    // writer is failed and the next append reports why.
    if (s.ok()) (void)writer->maybe_seal(system_wall_ms());
  }
};

using writer_pointer = writer_actor::stateful_pointer<WriterActorState>;

writer_actor::behavior_type writer_behavior(writer_pointer self, std::shared_ptr<WriterState> state) {
  self->state.writer = std::move(state);
  self->delayed_send(self, std::chrono::seconds(1), seal_atom::value);
  return {
      [self](append_atom, AppendRequest& req) {
        self->state.stage(req);
        self->state.flush_or_schedule(self);
      },
      [self](append_atom, AppendBatch& batch) {
        for (auto& req : batch) self->state.stage(req);
        self->state.flush_or_schedule(self);
      },
      [self](flush_atom) {
        self->state.flush_scheduled = false;
        self->state.flush();
      },
      [self](seal_atom) {
        auto& st = self->state;
        // A writer stopped by an I/O error tries the failed step again: it takes appends once
        // the disk does (space freed, say).
        (void)st.writer->retry(system_wall_ms());
        if (!st.writer->has_pending()) {
          Status s = st.writer->maybe_seal(system_wall_ms());
          (void)s;  // a failure leaves the writer failed; the next append reports it
        }
        self->delayed_send(self, std::chrono::seconds(1), seal_atom::value);
      },
      [self](caf::get_atom, WriterInfoReply& reply) {
        reply.done(self->state.writer->info());
      },
  };
}

}  // namespace

writer_actor spawn_writer(caf::actor_system& sys, std::shared_ptr<WriterState> state) {
  return sys.spawn<caf::detached>(writer_behavior, std::move(state));
}

}  // namespace vasana
