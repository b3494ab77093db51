// A put of text into realm "work" by writer at seqno (timestamp 1000 + seqno), applied to an
// engine, for tests that need a few memories and their digest.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "replica/recall_engine.hpp"

namespace vasana::test {

inline void put_text(RecallEngine& e, InstanceId writer, uint64_t seqno, const std::string& text) {
  PutMemoryOp p;
  p.realm = "work";
  p.text = text;
  REQUIRE(e.apply(OrderKey{Hlc::make(1000 + seqno, 0), writer, Seqno(seqno)}, p).ok());
}

}  // namespace vasana::test
