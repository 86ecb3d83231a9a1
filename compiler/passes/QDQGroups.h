//===- QDQGroups.h - What makes one int8 op of a QDQ group -----*- C++ -*-===//
//
// fold-qdq reads a DequantizeLinear -> op -> QuantizeLinear group as one int8
// op; the post-training quantizer (compiler/quantize) writes such groups. The
// two must agree on where a group ends, so the shape of a group is defined
// here once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_QDQGROUPS_H
#define KILN_PASSES_QDQGROUPS_H

#include "compiler/graph/Activation.h"
#include "compiler/graph/Graph.h"

namespace kiln {

/// Whether `n` only moves its input's values, so that it does the same on
/// int8 as on uint8 integers or the reals they stand for: its result keeps
/// its input's quantization and needs no QuantizeLinear of its own.
bool isQuantMove(const Node &n);

/// An activation the int8 form of Conv, MatMul, Add, Sub and Mul clamps
/// to in its requantization (TFLite's fused RELU, RELU6, RELU_N1_TO_1).
bool isFusableClamp(const Activation &a);

/// Whether `n`'s int8 form takes a fused clamp (isFusableClamp).
bool takesFusedClamp(const Node &n);

} // namespace kiln

#endif
