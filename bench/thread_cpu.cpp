#include "bench/thread_cpu.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace vasana::bench {

ThreadCpu sample_thread_cpu() {
  ThreadCpu out;
  const double tick = double(::sysconf(_SC_CLK_TCK));
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream in(task.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;  // the thread ended meanwhile
    // "tid (comm) state ppid ..."; comm may hold spaces and parentheses: it ends at the last ')'.
    const size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    // Fields 3..13 precede utime (14) and stime (15).
    for (int i = 3; i <= 13 && rest >> field; ++i) {
    }
    unsigned long long utime = 0, stime = 0;
    if (!(rest >> utime >> stime)) continue;
    out[line.substr(open + 1, close - open - 1)] += double(utime + stime) / tick;
  }
  return out;
}

ThreadCpu cpu_between(const ThreadCpu& before, const ThreadCpu& after, double min_seconds) {
  ThreadCpu out;
  for (const auto& [name, s] : after) {
    auto it = before.find(name);
    const double d = s - (it == before.end() ? 0.0 : it->second);
    if (d >= min_seconds && d > 0) out[name] = d;
  }
  return out;
}

}  // namespace vasana::bench
