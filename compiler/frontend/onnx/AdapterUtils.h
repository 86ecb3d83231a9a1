//===- AdapterUtils.h - Shared pieces of the opset adapters ----*- C++ -*-===//
//
// Internal to the ONNX frontend: reading constant inputs that kiln holds as
// attributes, the adapter that moves them into attributes (OpsetInputs.cpp),
// and the adapters that OpsetAdapters.cpp dispatches to.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_ADAPTERUTILS_H
#define KILN_FRONTEND_ONNX_ADAPTERUTILS_H

#include "compiler/frontend/onnx/NodeEmitter.h"

namespace kiln {

/// The constant behind input `i`, or an error naming the input (a
/// NonConstantInputError) when it is computed at run time.
llvm::Expected<const Tensor *> constantInput(const PendingNode &n, unsigned i,
                                             llvm::StringRef what);
/// A constant int64 vector input (pads, shape, axes).
llvm::Expected<llvm::SmallVector<int64_t, 8>>
intsInput(const PendingNode &n, unsigned i, llvm::StringRef what);
/// A constant one-element input (Clip's bounds, Pad's value), as a float
/// attribute holds it.
llvm::Expected<float> scalarInput(const PendingNode &n, unsigned i,
                                  llvm::StringRef what);

llvm::Error checkMaxInputs(const PendingNode &n, unsigned maxInputs);
/// Reads an int attribute that an adapter interprets itself.
llvm::Expected<int64_t> intAttr(const PendingNode &n, llvm::StringRef attr,
                                int64_t dflt);

/// Int attribute `attr` as an axis of a rank-`rank` tensor, made
/// non-negative; `dflt` when absent (required when there is none).
llvm::Expected<int64_t> axisAttr(const PendingNode &n, llvm::StringRef attr,
                                 std::optional<int64_t> dflt, int64_t rank);
/// A constant int input holding one value (a size, k).
llvm::Expected<int64_t> scalarIntInput(const PendingNode &n, unsigned i,
                                       llvm::StringRef what);

/// Emits a node whose value-only input is computed at run time, as a
/// formula over ops that take the value as an operand.
using RuntimeValueForm = llvm::Expected<ValueList> (*)(NodeEmitter &,
                                                       PendingNode &);

/// Applies the rows of opsetInputs() (OpsetInputs.h) for `n`'s op at
/// `opset`: the constants behind the inputs that the IR holds as attributes
/// become those attributes, and the inputs are dropped. Where such an input
/// only carries a value (Clip's bounds, Trilu's k) and is computed at run
/// time, `n` keeps its inputs and the op's runtime form is returned for the
/// caller to emit; otherwise nullptr.
llvm::Expected<RuntimeValueForm> takeOpsetInputs(PendingNode &n,
                                                 int64_t opset);

/// `v` reshaped to `shape` (folded when `v` is a constant).
llvm::Expected<Value *> reshapeTo(NodeEmitter &e, const PendingNode &n,
                                  Value *v, llvm::ArrayRef<int64_t> shape,
                                  llvm::StringRef suffix);

/// Emits the helper nodes of one ONNX node imported as a formula over ops
/// kiln has, so the adapter reads as the formula: after the first error
/// every add returns nullptr, and takeError reports it once.
class Formula {
public:
  Formula(NodeEmitter &e, const PendingNode &n) : e(e), n(n) {}

  /// A node `NODE/role`; `resultName` names its result (an ONNX output).
  Value *add(llvm::StringRef role, OpKind kind, llvm::ArrayRef<Value *> in,
             AttrMap attrs = {}, const std::string &resultName = "");
  /// A constant `NODE/role` (made unique).
  Value *constant(llvm::StringRef role, Tensor t);
  Value *scalar(llvm::StringRef role, float v);
  Value *reduce(llvm::StringRef role, OpKind kind, Value *x,
                llvm::ArrayRef<int64_t> axes, bool keepDims);
  llvm::Error takeError() { return std::move(err); }

private:
  NodeEmitter &e;
  const PendingNode &n;
  llvm::Error err = llvm::Error::success();
};

// Adapters of ops whose shape-deciding inputs need more than
// takeOpsetInputs (InputAdapters.cpp).
llvm::Expected<ValueList> emitSplit(NodeEmitter &e, PendingNode &n);
/// Pad-18's axes input folded into its pads input (before takeOpsetInputs).
llvm::Error takePadAxes(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitTile(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitResize(NodeEmitter &e, PendingNode &n);

// Ops imported as gathers and scatters (IndexAdapters.cpp).
llvm::Expected<ValueList> emitCompress(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitReverseSequence(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitMaxUnpool(NodeEmitter &e, PendingNode &n);

// Ops imported as their formulas (CompositeAdapters.cpp).
llvm::Expected<ValueList> emitTrainingBatchNorm(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitDynamicQuantizeLinear(NodeEmitter &e,
                                                    PendingNode &n);
/// Gelu-20, exact or tanh's approximation, as elementwise ops.
llvm::Expected<ValueList> emitGelu(NodeEmitter &e, PendingNode &n);
/// GroupNormalization-18 and 21 as a LayerNorm of each group's row.
llvm::Expected<ValueList> emitGroupNormalization(NodeEmitter &e, PendingNode &n);
/// Clip-11+ with a bound computed at run time: Max, then Min.
llvm::Expected<ValueList> emitClipOfRuntimeBounds(NodeEmitter &e,
                                                  PendingNode &n);
/// Trilu with k computed at run time: a Where over the constant j - i.
llvm::Expected<ValueList> emitTriluOfRuntimeK(NodeEmitter &e, PendingNode &n);

// ONNX's quantization ops (QLinearOps.cpp).
/// Checks input `i`, a scale, when it is a constant: every element must be
/// positive (the error names the node and `what`).
llvm::Error checkConstantScale(const PendingNode &n, unsigned i,
                               llvm::StringRef what);
/// QuantizeLinear and DequantizeLinear, after checkConstantScale.
llvm::Expected<ValueList> emitLinearQuantization(NodeEmitter &e,
                                                 PendingNode &n);
/// QLinearConv and QLinearMatMul as their QDQ groups.
llvm::Expected<ValueList> emitQLinearConv(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitQLinearMatMul(NodeEmitter &e, PendingNode &n);
/// ConvInteger and MatMulInteger in f32 where that is exact.
llvm::Expected<ValueList> emitConvInteger(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitMatMulInteger(NodeEmitter &e, PendingNode &n);

/// Einsum as transposes, diagonals, reductions and MatMuls (Einsum.cpp).
llvm::Expected<ValueList> emitEinsum(NodeEmitter &e, PendingNode &n);
/// MaxPool with its Indices output: the values, and an ArgMax over the
/// window taps turned into flat input indices (MaxPoolIndices.cpp).
llvm::Expected<ValueList> emitMaxPoolWithIndices(NodeEmitter &e,
                                                 PendingNode &n);
/// DFT and STFT as products with constant DFT matrices, MelWeightMatrix
/// as a constant (Spectral.cpp).
llvm::Expected<ValueList> emitDft(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitStft(NodeEmitter &e, PendingNode &n);
llvm::Expected<ValueList> emitMelWeightMatrix(NodeEmitter &e,
                                              PendingNode &n);
/// GridSample as gathers of weighted interpolation taps (GridSample.cpp).
llvm::Expected<ValueList> emitGridSample(NodeEmitter &e, PendingNode &n);
/// TopK as comparisons counted into ranks and selected (TopK.cpp).
llvm::Expected<ValueList> emitTopK(NodeEmitter &e, PendingNode &n);

} // namespace kiln

#endif
