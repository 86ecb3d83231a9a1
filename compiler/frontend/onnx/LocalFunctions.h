//===- LocalFunctions.h - ONNX model-local functions, inlined ---*- C++ -*-===//
//
// An ONNX model may define functions (ModelProto.functions, IR version 8 and
// later) and call them as nodes of the function's domain and name. PyTorch's
// dynamo exporter (2.1 to 2.5) wrote one per nn.Module, and onnxscript writes
// them. kiln inlines every call into the main graph before importing, so the
// rest of the frontend sees only ops.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_LOCALFUNCTIONS_H
#define KILN_FRONTEND_ONNX_LOCALFUNCTIONS_H

#include "compiler/graph/ResourceLimits.h"

#include "llvm/Support/Error.h"

#include "onnx/onnx_pb.h"

#include <cstdint>

namespace kiln {

/// Replaces each call of one of `model`'s functions in its main graph by the
/// function's nodes, recursively: formal inputs and outputs become the
/// call's values, the other values and the nodes are named "<call>/<name>",
/// and attributes that refer to the function's (ref_attr_name) take the
/// call's value or the function's default (IR 9), or are left out. Calls
/// nest at most `limits.maxSubgraphDepth` deep (ONNX forbids recursion) and
/// the graph grows to at most `limits.maxNodes` nodes. A model without
/// functions is left as it is.
llvm::Error inlineLocalFunctions(onnx::ModelProto &model, int64_t defaultOpset,
                                 const ResourceLimits &limits);

} // namespace kiln

#endif
