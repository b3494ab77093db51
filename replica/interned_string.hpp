// InternedString: a string that many records repeat (a realm, a source tool, a source session),
// stored once per process. A record holds a pointer (8 bytes) instead of a std::string (32
// bytes, plus a heap copy past 15 characters: a session id such as a UUID is 36).
//
// Two InternedStrings are equal exactly when their texts are (one entry per text), so equality
// is a pointer comparison.
//
// Limits: interned texts are never freed; the table grows with the number of distinct texts
// ever interned in the process (each costs its length plus about 80 bytes). Realms, tools and
// sessions are few beside the memories that name them. Interning takes a process-wide mutex,
// skipped when the text is one of the last four the thread interned.
//
// Threading: of() may be called from any thread; an InternedString is an immutable value.
#pragma once

#include <string>
#include <string_view>

namespace vasana {

class InternedString {
 public:
  InternedString();  // ""
  static InternedString of(std::string_view text);

  const std::string& str() const { return *s_; }
  bool empty() const { return s_->empty(); }

  friend bool operator==(const InternedString& a, const InternedString& b) { return a.s_ == b.s_; }
  friend bool operator!=(const InternedString& a, const InternedString& b) { return a.s_ != b.s_; }

 private:
  explicit InternedString(const std::string* s) : s_(s) {}
  const std::string* s_;
};

}  // namespace vasana
