//===- LayerGraph.h - The report's picture of the layers -------*- C++ -*-===//
//
// The layer graph of the compile report as an SVG element with id
// "layer-graph": a box per layer, labelled with its op, node and kernel
// (red for a slow fallback), and an edge from each layer's producers.
// Which renderer a build links is chosen at build time
// (//compiler/report:graphviz): Graphviz's dot layout, linked from Debian's
// libgraphviz, or a plain drawing that needs no layout engine.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REPORT_LAYERGRAPH_H
#define KILN_REPORT_LAYERGRAPH_H

#include "compiler/report/CompileReport.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln::report {

/// Writes the layer graph's <svg id="layer-graph"> element.
llvm::Error writeLayerGraphSvg(const CompileReport &r, llvm::raw_ostream &os);

/// What the picture shows, for the text above it.
extern const char kLayerGraphCaption[];

/// The label of layer `i` in the picture: "I Op 'node'  [strategy]".
std::string layerLabel(const CompileReport &r, size_t i);

} // namespace kiln::report

#endif
