#include "tests/fault/member_checker.hpp"

#include <map>
#include <optional>

namespace vasana::test::fault {

std::vector<std::string> check_members(TestCluster& c, const std::vector<OpRecord>& ops, size_t* members) {
  std::vector<std::string> bad;
  std::optional<std::map<std::string, std::string>> first;  // key -> "admitted ADDRESS" / "removed"
  for (size_t i = 0; i < c.size(); ++i) {
    auto st = c.status(i);
    if (!st.ok()) {
      bad.push_back("members: n" + std::to_string(i) + ": status failed: " + st.status().message());
      return bad;
    }
    std::map<std::string, std::string> held;
    for (const MemberStatus& m : st->members) held[m.public_key] = m.admitted ? "admitted " + m.address : "removed";
    if (!first) first = std::move(held);
    else if (held != *first)
      bad.push_back("members: n" + std::to_string(i) + " holds " + std::to_string(held.size()) + " members, n0 " +
                    std::to_string(first->size()) + ", or other ones");
  }
  *members = first ? first->size() : 0;

  std::map<std::string, std::vector<const OpRecord*>> by_key;
  for (const OpRecord& op : ops)
    if (op.kind == OpKind::admit || op.kind == OpKind::remove) by_key[op.text].push_back(&op);
  for (const auto& [key, changes] : by_key) {
    bool unknown = false, any_written = false;
    const OpRecord* last = nullptr;
    for (const OpRecord* op : changes) {
      unknown |= op->outcome == Outcome::unknown;
      any_written |= op->outcome != Outcome::failed;
      if (op->outcome == Outcome::acked && (!last || last->key < op->key)) last = op;
    }
    auto it = first->find(key);
    if (!any_written && it != first->end()) bad.push_back("members: " + key + " is held, but every change of it was refused");
    if (unknown || !last) continue;
    const std::string want = last->kind == OpKind::admit ? "admitted tcp://127.0.0.1:9" : "removed";
    if (it == first->end() || it->second != want)
      bad.push_back("members: " + key + " is " + (it == first->end() ? std::string("not held") : it->second) +
                    ", the last acknowledged change made it " + want + ": " + last->describe());
  }
  return bad;
}

}  // namespace vasana::test::fault
