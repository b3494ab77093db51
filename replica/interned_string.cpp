#include "replica/interned_string.hpp"

#include <deque>
#include <mutex>
#include <unordered_map>

namespace vasana {

namespace {

struct InternTable {
  std::mutex mutex;
  std::deque<std::string> texts;  // stable addresses: a deque never moves its elements on push_back
  std::unordered_map<std::string_view, const std::string*> by_text;  // keys view into texts
  const std::string* empty = nullptr;  // set once, before any other thread can see the table

  InternTable() {
    texts.emplace_back();
    empty = &texts.back();
    by_text.emplace(std::string_view(*empty), empty);
  }
};

InternTable& table() {
  static InternTable* t = new InternTable();  // never destroyed: records may outlive statics
  return *t;
}

}  // namespace

InternedString::InternedString() : s_(table().empty) {}

InternedString InternedString::of(std::string_view text) {
  // The thread's last few texts, checked before the mutex: a put interns its realm, its source
  // session and its source tool in turn, and the next put mostly repeats all three.
  constexpr size_t kRecent = 4;
  thread_local const std::string* recent[kRecent] = {};
  thread_local size_t next_slot = 0;
  for (const std::string* r : recent)
    if (r && *r == text) return InternedString(r);
  InternTable& t = table();
  const std::string* found = nullptr;
  {
    std::lock_guard<std::mutex> g(t.mutex);
    auto it = t.by_text.find(text);
    if (it == t.by_text.end()) {
      t.texts.emplace_back(text);
      it = t.by_text.emplace(std::string_view(t.texts.back()), &t.texts.back()).first;
    }
    found = it->second;
  }
  recent[next_slot] = found;
  next_slot = (next_slot + 1) % kRecent;
  return InternedString(found);
}

}  // namespace vasana
