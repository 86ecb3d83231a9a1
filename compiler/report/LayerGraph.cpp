//===- LayerGraph.cpp - What both layer-graph renderers share -------------===//

#include "compiler/report/LayerGraph.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln::report {

std::string layerLabel(const CompileReport &r, size_t i) {
  const LayerReport &l = r.layers[i];
  std::string label = llvm::formatv("{0}  {1} '{2}'", i, l.op, l.name).str();
  if (!l.strategy.empty())
    label += "  [" + l.strategy + "]";
  return label;
}

} // namespace kiln::report
