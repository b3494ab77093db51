// OutOfLine<T>: a value that most holders leave at its default, kept out of line. While it is
// the default it costs one null pointer (8 bytes); once set to anything else it is one heap
// allocation. Reads of an unset value see a shared T{}; copies are deep.
//
// Why: a replica holds one MemoryRecord (replica/memory_record.hpp) per memory, and on this VM
// most of a catch-up's applying time is the first touch of fresh memory. A status reason, a
// successor, a tombstone and a review verdict are set on few memories; inline they cost every
// memory 96 bytes.
//
// Limits: T must be default-constructible and copyable; set() also needs T == T (it compares
// with T{} to drop a value that went back to the default). References from get() are valid
// until the next set(), mut() or assignment.
#pragma once

#include <memory>
#include <utility>

namespace vasana {

template <class T>
class OutOfLine {
 public:
  OutOfLine() = default;
  OutOfLine(const OutOfLine& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  OutOfLine& operator=(const OutOfLine& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  // A moved-from OutOfLine reads as T{}.
  OutOfLine(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(OutOfLine&&) noexcept = default;

  const T& get() const { return p_ ? *p_ : default_value(); }
  const T& operator*() const { return get(); }
  const T* operator->() const { return &get(); }
  // Whether a value is held out of line (the value is not T{}, or mut() was called).
  bool allocated() const { return p_ != nullptr; }

  void set(T v) {
    if (v == default_value()) p_.reset();
    else if (p_) *p_ = std::move(v);
    else p_ = std::make_unique<T>(std::move(v));
  }
  // The value to change in place, allocated (as T{}) when unset.
  T& mut() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }

 private:
  static const T& default_value() { return kDefault; }
  // Made when the program loads, not on first use: a first use registers its destructor under
  // glibc's exit-handler lock, which another thread may hold when a child is forked
  // (actors/forked_child.hpp), and the child reads these values.
  static inline const T kDefault{};
  std::unique_ptr<T> p_;
};

}  // namespace vasana
