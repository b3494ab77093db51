// The writer folders of a data directory (DIR/writers/<16 hex digits>), sorted, and the segment
// files in one of them.
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

struct SegmentFile {
  SegmentIndex index;
  std::string path;
  uint64_t size = 0;  // when listed; a growing segment may be longer by now
};

// The files of writer_dir named as segments (store/segment_format.hpp), in index order. Indexes
// may have gaps: that is for the stream's verification to judge.
Result<std::vector<SegmentFile>> list_segment_files(const std::string& writer_dir);

}  // namespace vasana
