//===- NodeNames.h - How the ONNX frontend names nodes and domains -*- C++ -*-===//
//
// Shared by the importer and the function inliner, so that a node's name in
// an error, and which nodes are ONNX's own ops, agree between them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_NODENAMES_H
#define KILN_FRONTEND_ONNX_NODENAMES_H

#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

#include <string>

namespace kiln {

/// The name kiln uses for the ONNX node at `index` of its graph: its own,
/// or "<OpType>_<index>" when it has none.
std::string nodeDisplayName(const onnx::NodeProto &n, int index);

/// Whether `domain` names ONNX's default operator set ("" or "ai.onnx").
bool isDefaultDomain(llvm::StringRef domain);

} // namespace kiln

#endif
