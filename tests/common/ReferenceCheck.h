//===- ReferenceCheck.h - Comparing kiln with a reference output -*- C++ -*-===//
//
// The tolerances every end-to-end test applies against an independent
// oracle: float outputs within 1e-4 * max(1, max|ref|); int8 outputs within
// 1 step on at least 99% of the elements and within 2 everywhere (references
// such as Arm NN round quantized ops through float).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_COMMON_REFERENCECHECK_H
#define KILN_TESTS_COMMON_REFERENCECHECK_H

#include "compiler/graph/Tensor.h"

#include <string>

namespace kiln {

/// Reads raw little-endian bytes of `type` (a gtest failure, and zeros, on a
/// missing file or a wrong size).
Tensor readRawTensor(const std::string &path, const TensorType &type);

/// Checks `got` against `ref` with the tolerance of their dtype, and prints
/// the error found.
void expectMatchesReference(const Tensor &got, const Tensor &ref);

} // namespace kiln

#endif
