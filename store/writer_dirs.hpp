// The writer folders of a data directory (DIR/writers/<16 hex digits>), sorted.
#pragma once

#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"

namespace vasana {

struct WriterDir {
  InstanceId instance;
  std::string path;
};

// Folders whose names are not instance ids are reported in *ignored.
Result<std::vector<WriterDir>> list_writer_dirs(const DataDir& dir, std::vector<std::string>* ignored);

}  // namespace vasana
