// Conversion between MemoryInput and the PutMemory struct of ops.capnp, shared by the op
// codec and the client codec. Includes generated code: keep it out of widely used headers.
#pragma once

#include "protocol/memory_input.hpp"
#include "protocol/ops.capnp.h"

namespace vasana {

void fill_put_memory(schema::PutMemory::Builder put, const MemoryInput& m);
MemoryInput memory_from_reader(schema::PutMemory::Reader p);

}  // namespace vasana
