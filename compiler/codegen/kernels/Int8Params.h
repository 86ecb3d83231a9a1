//===- Int8Params.h - Compile-time parameters of weighted int8 kernels -*- C++ -*-===//
//
// What TFLite computes in Prepare for an int8 Conv or MatMul, computed at
// compile time for the GEMM and the depthwise kernels alike: the
// requantization tables, the bias, and the fused activation's clamp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_INT8PARAMS_H
#define KILN_CODEGEN_KERNELS_INT8PARAMS_H

#include "compiler/codegen/kernels/IntegerIR.h"

#include <utility>
#include <vector>

namespace kiln {
namespace codegen {

/// Constant tables of the multipliers and of the shifts.
std::pair<llvm::Value *, llvm::Value *>
multiplierTables(IntegerIR &ir, llvm::ArrayRef<tfl::QuantizedMultiplier> m);

/// The int32 bias of each of `channels` outputs (0 without a bias); the
/// kernels add the input offset to the inputs, so nothing is folded in.
std::vector<int32_t> int8Bias(const Node &n, int64_t channels);

/// The fused activation's clamp of an int8 Conv or MatMul, whose weights
/// and bias must be constants.
llvm::Expected<tfl::ActivationRange> weightedInt8Range(const Node &n);

} // namespace codegen
} // namespace kiln

#endif
