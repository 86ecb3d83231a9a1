//===- Gradient.h - ONNX Gradient by reverse-mode differentiation -*- C++
//-*-===//
//
// Internal to the ONNX frontend. ai.onnx.preview.training's Gradient asks
// for the derivatives of one tensor of the graph with respect to others.
// kiln differentiates the graph imported so far, in reverse mode, and
// emits the derivative computations as ordinary nodes, so the bundle
// computes them like any other output. Only elementwise arithmetic is
// differentiated (Add, Sub, Mul, Div, Neg, Identity); any other op on the
// way from an x to y is an error naming it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_GRADIENT_H
#define KILN_FRONTEND_ONNX_GRADIENT_H

#include "compiler/frontend/onnx/NodeEmitter.h"

namespace kiln {

/// The domain of ONNX's training ops.
inline constexpr const char *kOnnxTrainingDomain = "ai.onnx.preview.training";

/// d(sum of y)/dx for each of `xs`, named after `n.outputs`.
llvm::Expected<ValueList> emitGradient(NodeEmitter &e, const PendingNode &n,
                                       Value *y, llvm::ArrayRef<Value *> xs);

} // namespace kiln

#endif
