//===- NodeNames.cpp - How the ONNX frontend names nodes and domains ------===//

#include "compiler/frontend/onnx/NodeNames.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

std::string nodeDisplayName(const onnx::NodeProto &n, int index) {
  if (!n.name().empty())
    return n.name();
  return llvm::formatv("{0}_{1}", n.op_type(), index).str();
}

bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

} // namespace kiln
