// A RocksDB file system that gives every file RocksDB creates private_file_mode()
// (store/file_access.hpp), and every folder private_dir_mode(), at creation, whatever the umask.
// For the checkpoint database (store/checkpoint_store.hpp): included by its .cpp only, so that
// RocksDB's headers stay out of the rest of the code.
#pragma once

#include <rocksdb/file_system.h>

#include <memory>
#include <string>

#include "store/file_access.hpp"

namespace vasana {

class PrivateModeFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit PrivateModeFileSystem(const std::shared_ptr<rocksdb::FileSystem>& t) : FileSystemWrapper(t) {}
  const char* Name() const override { return "VasanaPrivateMode"; }

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r, rocksdb::IODebugContext* d) override {
    return file(f, target()->NewWritableFile(f, o, r, d));
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* d) override {
    return file(f, target()->ReopenWritableFile(f, o, r, d));
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* d) override {
    return file(f, target()->ReuseWritableFile(f, old, o, r, d));
  }
  rocksdb::IOStatus NewRandomRWFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* r, rocksdb::IODebugContext* d) override {
    return file(f, target()->NewRandomRWFile(f, o, r, d));
  }
  rocksdb::IOStatus LockFile(const std::string& f, const rocksdb::IOOptions& o, rocksdb::FileLock** l,
                             rocksdb::IODebugContext* d) override {
    return file(f, target()->LockFile(f, o, l, d));
  }
  rocksdb::IOStatus NewLogger(const std::string& f, const rocksdb::IOOptions& o, std::shared_ptr<rocksdb::Logger>* r,
                              rocksdb::IODebugContext* d) override {
    return file(f, target()->NewLogger(f, o, r, d));
  }
  rocksdb::IOStatus CreateDir(const std::string& f, const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
    return dir(f, target()->CreateDir(f, o, d));
  }
  rocksdb::IOStatus CreateDirIfMissing(const std::string& f, const rocksdb::IOOptions& o,
                                       rocksdb::IODebugContext* d) override {
    return dir(f, target()->CreateDirIfMissing(f, o, d));
  }

 private:
  static rocksdb::IOStatus file(const std::string& f, rocksdb::IOStatus s) { return chmod_after(f, s, private_file_mode()); }
  static rocksdb::IOStatus dir(const std::string& f, rocksdb::IOStatus s) { return chmod_after(f, s, private_dir_mode()); }
  static rocksdb::IOStatus chmod_after(const std::string& f, rocksdb::IOStatus s, unsigned mode) {
    if (!s.ok()) return s;
    if (!set_mode(f, mode).ok()) return rocksdb::IOStatus::IOError("cannot set the mode of " + f);
    return s;
  }
};

}  // namespace vasana
