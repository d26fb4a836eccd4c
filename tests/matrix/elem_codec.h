// Element values of every gpurun data type as doubles: encoding (correctly
// rounded, round to nearest even, for the floating types; exact for the
// integer values the matrix uses) and decoding, so expected results are
// computed once in double and compared byte for byte.
#ifndef GPURUN_TESTS_MATRIX_ELEM_CODEC_H_
#define GPURUN_TESTS_MATRIX_ELEM_CODEC_H_

#include <string>

#include "gpurun/gpurun.h"

namespace gpurun::matrix {

// Writes `value` as one element of `type` at `dst` (unaligned is fine).
// Floating types round to nearest even; integer types take the value, which
// must be an integer within the type's range (the matrix only makes such).
void EncodeElem(grDataType_t type, double value, void* dst);

// The element of `type` at `src` (unaligned is fine) as a double.
double DecodeElem(grDataType_t type, const void* src);

// "5" or "-0.25", and the raw bytes in hex: "5 (0x05)".
std::string FormatElem(grDataType_t type, const void* src);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_ELEM_CODEC_H_
