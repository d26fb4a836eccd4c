// BlockAt: where a block of a point-to-point collective lies in its buffer;
// and the StepWindow those collectives post their steps through
// (coll/host/step_window.h), under the runtime's namespace.
#ifndef GPURUN_RUNTIME_COLL_P2P_WINDOW_H_
#define GPURUN_RUNTIME_COLL_P2P_WINDOW_H_

#include <cstddef>

#include "coll/host/step_window.h"

namespace gpurun {

using coll::StepWindow;

// `base` + displ elements, or null when the block is empty (base may be null then).
inline std::byte* BlockAt(void* base, size_t displ, size_t count, size_t elem_size) {
  return count == 0 ? nullptr : static_cast<std::byte*>(base) + displ * elem_size;
}
inline const std::byte* BlockAt(const void* base, size_t displ, size_t count, size_t elem_size) {
  return count == 0 ? nullptr : static_cast<const std::byte*>(base) + displ * elem_size;
}

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_P2P_WINDOW_H_
