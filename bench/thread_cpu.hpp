// CPU time of this process's threads by thread name (/proc/self/task/*/stat), for the benchmarks
// that say where a node's CPU goes: two samples around a run, their difference per name.
// Threads that end between the samples are not counted; names are the kernel's (15 bytes, set
// with pthread_setname_np), so ZeroMQ's I/O threads of the node and of the benchmark's own
// clients share one name ("ZMQbg/IO/0").
#pragma once

#include <map>
#include <string>

namespace vasana::bench {

// Seconds of CPU (user + system) by thread name, summed over the threads of that name.
using ThreadCpu = std::map<std::string, double>;

ThreadCpu sample_thread_cpu();
// after - before, per name; names with less than min_seconds left out.
ThreadCpu cpu_between(const ThreadCpu& before, const ThreadCpu& after, double min_seconds = 0.0);

}  // namespace vasana::bench
