//===- Int8Eval.h - TFLite's integer semantics of the int8 ops -*- C++ -*-===//
//
// The reference evaluators of the ops' int8 forms (TFLite Micro's reference
// kernels, through the arithmetic of IntegerMath.h): the oracle compiled int8
// code is compared with bit for bit. Each op record's evaluator hands its
// int8 case here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_INT8EVAL_H
#define KILN_OPS_INT8EVAL_H

#include "compiler/graph/Graph.h"
#include "compiler/ops/IntegerMath.h"
#include "compiler/ops/TypeRuleHelpers.h"

namespace kiln {

/// The clamp an int8 op's fused activation (kActivationAttr) applies to its
/// result, whose quantization is `out`: none, Relu, Clip(0,6) and
/// Clip(-1,1) are TFLite's; others are an error.
llvm::Expected<tfl::ActivationRange> int8ActivationRange(const Node &n,
                                                         const QuantParams &out);

/// The requantization multiplier of each output channel (`channels` of
/// them) from the input, weight and output scales: QuantizeMultiplier of
/// in * w / out, whose product TFLM's per-tensor FULLY_CONNECTED
/// (`fullyConnected`) takes in float.
llvm::SmallVector<tfl::QuantizedMultiplier, 16>
channelMultipliers(const QuantParams &x, const QuantParams &w,
                   const QuantParams &y, int64_t channels, bool fullyConnected);

/// Conv (grouped and depthwise too): acc = bias + sum w * (x - x_zp) over the
/// in-bounds taps, requantized per output channel (reference/integer_ops/
/// conv.h and depthwise_conv.h).
llvm::Error evalConvInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out);
/// MatMul [M,K] x [K,N] (+ bias): FULLY_CONNECTED (reference/integer_ops/
/// fully_connected.h).
llvm::Error evalMatMulInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out);
/// TFLite's parameters for an int8 Add, Sub or Mul node (from its input and
/// output quantization) and the clamp of its fused activation.
struct BinaryInt8Params {
  bool isMul = false;
  tfl::AddParams add;
  tfl::MulParams mul;
  tfl::ActivationRange range;
};
llvm::Expected<BinaryInt8Params> prepareBinaryInt8(const Node &n);

/// Add, Sub, Mul with broadcasting.
llvm::Error evalBinaryInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out);
/// AveragePool over the in-bounds taps (same quantization in and out).
llvm::Error evalAveragePoolInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                                llvm::MutableArrayRef<Tensor> out);
/// ReduceMean.
llvm::Error evalMeanInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out);
/// The real values (q - zero point) * scale an int8 tensor stands for, per
/// tensor or per channel (DEQUANTIZE; a hybrid model's int8 weights).
Tensor dequantizedTensor(const Tensor &q);

/// Whether the activation record `kind` has an int8 form.
bool hasInt8Form(ActivationKind kind);
/// The int8 result of an activation op: its kQuantAttr, which LOGISTIC and
/// TANH must give as TFLite fixes it (1/256, -128 and 1/128, 0).
llvm::Expected<TypeList> inferActivationInt8(const Node &n);
/// An activation on int8. Its quantization comes from the tensors, not the
/// node's types, so any shape of them may be evaluated.
llvm::Error evalActivationInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                               llvm::MutableArrayRef<Tensor> out);
/// Softmax along the last axis; the result is scale 1/256, zero point -128.
llvm::Error evalSoftmaxInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                            llvm::MutableArrayRef<Tensor> out);

} // namespace kiln

#endif
