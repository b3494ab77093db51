// Membership in the replica (replica/member_record.hpp): per public key, the set_member op that
// orders last holds, whatever order the ops arrive in, and it is in the digest.
#include <catch2/catch.hpp>

#include "replica/replica_state.hpp"

namespace vasana {
namespace {

const std::string kD(40, 'd');
const std::string kE(40, 'e');

OrderKey at(uint64_t ms, uint64_t instance, uint64_t seqno) {
  return OrderKey{Hlc::make(ms, 0), InstanceId(instance), Seqno(seqno)};
}

}  // namespace

TEST_CASE("a member's last change in key order holds, in either arrival order") {
  const OrderKey admit = at(100, 1, 1), remove = at(200, 2, 1), readmit = at(300, 1, 2);
  const SetMemberOp admit_op{kD, "tcp://10.0.0.4:7102", true, "d"};
  const SetMemberOp remove_op{kD, "", false, "d"};
  const SetMemberOp readmit_op{kD, "tcp://10.0.0.5:7102", true, "d2"};
  ReplicaState ab, ba;
  REQUIRE(ab.apply(admit, admit_op).ok());
  REQUIRE(ab.apply(remove, remove_op).ok());
  REQUIRE(ba.apply(remove, remove_op).ok());
  REQUIRE(ba.apply(admit, admit_op).ok());
  CHECK_FALSE(ab.members().at(kD).admitted);  // negative: the later removal holds
  CHECK(ab.digest() == ba.digest());
  CHECK(ab.members().at(kD).key == remove);
  CHECK(ba.members().at(kD).key == remove);
  CHECK(ab.member_changes() == 2);

  // Positive: a readmission ordered after the removal holds, with its address.
  REQUIRE(ab.apply(readmit, readmit_op).ok());
  REQUIRE(ba.apply(readmit, readmit_op).ok());
  CHECK(ab.members().at(kD).admitted);
  CHECK(ab.members().at(kD).address == "tcp://10.0.0.5:7102");
  CHECK(ab.digest() == ba.digest());
}

TEST_CASE("membership is in the state digest, and a state without members hashes without it") {
  ReplicaState none, one, other;
  const OrderKey k = at(100, 1, 1);
  REQUIRE(one.apply(k, SetMemberOp{kD, "tcp://10.0.0.4:7102", true, ""}).ok());
  REQUIRE(other.apply(k, SetMemberOp{kE, "tcp://10.0.0.4:7102", true, ""}).ok());
  CHECK(one.digest() != none.digest());
  CHECK(one.digest() != other.digest());
  CHECK(none.members().empty());
}

}  // namespace vasana
