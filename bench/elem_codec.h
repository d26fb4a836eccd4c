// Reading and writing one element of any grDataType_t as a double, for the
// benchmark's data check: half and bfloat16 are converted here (round to
// nearest even), integers wrap as the element type does.
#ifndef GPURUN_BENCH_ELEM_CODEC_H_
#define GPURUN_BENCH_ELEM_CODEC_H_

#include <cstddef>
#include <cstdint>

#include "gpurun/gpurun.h"

size_t ElemSize(grDataType_t type);
bool IsFloating(grDataType_t type);
bool IsSigned(grDataType_t type);

// IEEE binary16 and bfloat16 from and to float.
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBf16(float value);
float Bf16ToFloat(uint16_t bits);

// Element `index` of `base` as a double.
double LoadElem(grDataType_t type, const void* base, size_t index);
// Stores `value` (an integer value for the integer types) as element `index`.
void StoreElem(grDataType_t type, void* base, size_t index, double value);
// What StoreElem then LoadElem gives: `value` rounded (or wrapped) to the type.
double RoundToType(grDataType_t type, double value);
// The spacing of the type's values at `value`'s binade (1 for the integer
// types, 0 for 0: subnormals are not needed here).
double Ulp(grDataType_t type, double value);

#endif  // GPURUN_BENCH_ELEM_CODEC_H_
