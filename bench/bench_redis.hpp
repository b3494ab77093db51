// The Redis side of `vasana-bench replication`: a redis-server primary and replica on loopback
// (bench/redis_server.hpp), SET at a fixed rate to the primary, and the lag to each key's
// keyspace event on the replica.
#pragma once

#include <string>
#include <vector>

#include "bench/bench_figures.hpp"
#include "bench/redis_server.hpp"

namespace vasana::bench {

// The Redis rows of one configuration of the primary: a primary and a replica started for it
// under root, one row per rate, each printed as it is measured. problem is set on every row
// when Redis could not be run.
std::vector<LagFigures> redis_rows(const std::string& program, const std::string& root, const std::string& label,
                                   const std::vector<std::string>& primary_options, const std::vector<double>& rates,
                                   double seconds, TextGen& gen);

}  // namespace vasana::bench
