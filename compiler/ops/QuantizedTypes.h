//===- QuantizedTypes.h - The types of int8 ops ----------------*- C++ -*-===//
//
// An int8 op's result quantization is a free parameter (TFLite gives it per
// tensor), so the op records that compute int8 take it as an attribute, and
// their type rules read it from there; a pass re-inferring types keeps it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_QUANTIZEDTYPES_H
#define KILN_OPS_QUANTIZEDTYPES_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/StringRef.h"

namespace kiln {

/// The result's quantization (scale, zero point) of an int8 op.
inline constexpr llvm::StringLiteral kQuantAttr = "kiln.quant";
/// SOFTMAX's beta on int8 input, which enters its integer input scaling
/// (a float Softmax multiplies by beta first instead).
inline constexpr llvm::StringLiteral kSoftmaxBetaAttr = "kiln.beta";

/// The optional AttrSpec of kQuantAttr, on every op with an int8 form.
AttrSpec quantAttrSpec();

/// Whether `t` is an int8 tensor with per-tensor quantization (an int8
/// activation, in TFLite's terms).
bool isQuantizedInt8(const TensorType &t);

/// The int8 result type of `n`: `shape` with the quantization of the node's
/// kQuantAttr; an error when the attribute is absent or not per-tensor.
llvm::Expected<TensorType> quantizedResult(const Node &n,
                                           llvm::ArrayRef<int64_t> shape);

/// Checks that input `i` of `n` is an int8 activation (per-tensor).
llvm::Error expectQuantizedInt8(const Node &n, unsigned i);

/// The int8 form of Conv and MatMul: input 0 an int8 activation, input 1
/// symmetric int8 weights (zero point 0) per tensor or per channel along
/// `channelAxis`, optional input 2 an int32 bias.
llvm::Error expectQuantizedWeights(const Node &n, int64_t channelAxis);

} // namespace kiln

#endif
