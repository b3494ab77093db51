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
  thread_local const std::string* last = nullptr;
  if (last && *last == text) return InternedString(last);
  InternTable& t = table();
  std::lock_guard<std::mutex> g(t.mutex);
  auto it = t.by_text.find(text);
  if (it == t.by_text.end()) {
    t.texts.emplace_back(text);
    it = t.by_text.emplace(std::string_view(t.texts.back()), &t.texts.back()).first;
  }
  last = it->second;
  return InternedString(last);
}

}  // namespace vasana
