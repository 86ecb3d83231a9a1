//===- OpsetAdapters.h - ONNX opset differences -> kiln semantics -*- C++
//-*-===//
//
// kiln's IR gives every op the semantics of the newest opset it supports and
// keeps anything that decides a shape as an attribute. This is where older
// opsets are brought up to date and where inputs that newer opsets introduced
// for attribute-like data (Clip's min/max, Pad's pads, Reshape's shape,
// Squeeze/Unsqueeze's axes, ...) become attributes again, as the table of
// OpsetInputs.h says.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_OPSETADAPTERS_H
#define KILN_FRONTEND_ONNX_OPSETADAPTERS_H

#include "compiler/frontend/onnx/NodeEmitter.h"

namespace kiln {

/// The op kiln imports ONNX op type `opType` as: its own OpDef, or for an
/// op that another expresses (CastLike: Cast, Scatter: ScatterElements,
/// Upsample: Resize) that one; nullptr for an op kiln lacks.
const OpDef *lookupOnnxOp(llvm::StringRef opType);

/// Emits the ONNX node `n` (read at the emitter's opset) as kiln nodes and
/// returns the values of its ONNX outputs, in order. Fewer values than
/// `n.outputs` means kiln cannot produce the rest.
llvm::Expected<ValueList> emitAdapted(NodeEmitter &e, PendingNode &n);

/// emitAdapted for any node: one that reads f64 tensors is computed in f32
/// between Casts (F64Adapter.cpp).
llvm::Expected<ValueList> emitComputingF64InF32(NodeEmitter &e,
                                                PendingNode &n);

} // namespace kiln

#endif
