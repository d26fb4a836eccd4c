// C API: grGroupStart / grGroupEnd (gpurun.h, group.h).
#include "gpurun/gpurun.h"
#include "runtime/group.h"
#include "runtime/last_error.h"

extern "C" grResult_t grGroupStart(void) { return gpurun::ToResult(gpurun::group::Start()); }

extern "C" grResult_t grGroupEnd(void) { return gpurun::ToResult(gpurun::group::End().WithContext("grGroupEnd")); }
