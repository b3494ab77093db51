// Who may read what vasana creates: the data directory, its folders, segments, metadata files
// and the client socket. By default only the owner (directories 0700, files and the socket
// 0600): memories are private to the user who runs the node. With group access ([node]
// group_access = true) the owner's group may read too (0750, 0640) and connect to the client
// socket (0660). Modes are set exactly (chmod after creating), whatever the umask.
//
// Process-wide: set once at startup, before any thread creates files; read from any thread.
#pragma once

#include <string>

#include "protocol/status.hpp"

namespace vasana {

enum class FileAccess { owner_only, group };

void set_file_access(FileAccess access);
FileAccess file_access();

unsigned private_dir_mode();     // 0700, or 0750 with group access
unsigned private_file_mode();    // 0600, or 0640 with group access
unsigned private_socket_mode();  // 0600, or 0660 with group access (connecting needs write)

// Creates path and each missing parent with private_dir_mode(); folders that already exist
// keep their mode. IoError naming the folder that could not be made.
Status make_private_dirs(const std::string& path);

// Sets path's mode (an IoError naming path when chmod fails).
Status set_mode(const std::string& path, unsigned mode);

}  // namespace vasana
