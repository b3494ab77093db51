// `--vector FILE` of `vasana recall` and `vasana remember`: a JSON array of numbers in a file
// ("-": standard input). The dimension is the node's to check (the store's vector space).
#pragma once

#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

// The numbers of the JSON array in path. InvalidArgument naming the file when it cannot be read,
// is not one JSON array of numbers, is empty, or holds a value that is not a finite float.
Result<std::vector<float>> read_vector_file(const std::string& path);

// The dimension of a vector space id "MODEL/DIM/TEXT_FORMAT" (the model name may itself hold
// '/'); 0 when the id has no such form.
size_t vector_space_dim(const std::string& space_id);

}  // namespace vasana
