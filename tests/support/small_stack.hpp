// Runs a function on a thread whose stack is a given size, as civetweb runs the metrics
// exporter's collector on workers with 100 KB stacks. A function that needs more stack than
// that overflows it and kills the test process, which ctest reports as a failure.
#pragma once

#include <pthread.h>

#include <functional>
#include <stdexcept>

namespace vasana::test {

inline void run_on_small_stack(size_t stack_bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (pthread_attr_setstacksize(&attr, stack_bytes) != 0) throw std::runtime_error("stack size refused");
  auto body = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  pthread_t t;
  const int rc = pthread_create(&t, &attr, body, const_cast<std::function<void()>*>(&fn));
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("thread not started");
  pthread_join(t, nullptr);
}

}  // namespace vasana::test
