//===- LayerGraphArcs.cpp - The layer graph without a layout engine -------===//
//
// The plain renderer, for builds without Graphviz
// (--//compiler/report:graphviz=false).
//
//===----------------------------------------------------------------------===//

#include "compiler/report/HtmlText.h"
#include "compiler/report/LayerGraph.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace kiln::report {

const char kLayerGraphCaption[] =
    "The layers in the order they run; a line joins a layer to the next when that one "
    "reads its result, an arc to any later layer that reads it. Red boxes run a slow "
    "fallback kernel.";

/// The layer graph without a layout engine: layers top to bottom in the
/// order they run (graph inputs first), a short line from a layer to the
/// next when that one reads it, and an arc on the right from a layer to any
/// later one that reads it (a skip connection, a Concat input), wider the
/// further it reaches.
llvm::Error writeLayerGraphSvg(const CompileReport &r, llvm::raw_ostream &os) {
  const double left = 20, top = 10, rowH = 24, boxW = 440, boxH = 18;
  const double width = 960;
  size_t rows = r.layers.size() + 1;
  double height = top * 2 + rows * rowH;
  auto yOf = [&](int layer) { return top + (layer + 1) * rowH; };
  os << llvm::formatv("<svg id=\"layer-graph\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n",
                      width, height);
  auto box = [&](int layer, llvm::StringRef label, llvm::StringRef title,
                 const char *fill) {
    os << llvm::formatv("<rect x=\"{0}\" y=\"{1:F1}\" width=\"{2}\" height=\"{3}\" "
                        "rx=\"4\" fill=\"{4}\" stroke=\"#666\"><title>{5}</title></rect>"
                        "<text x=\"{6}\" y=\"{7:F1}\">{8}</text>\n",
                        left, yOf(layer), boxW, boxH, fill, escape(title), left + 6,
                        yOf(layer) + 13, escape(label.take_front(boxW / 7)));
  };
  box(kGraphInput, "graph inputs", "the caller's input tensors", "#eee");
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerReport &l = r.layers[i];
    std::string label = layerLabel(r, i);
    std::string title = label;
    for (const std::string &f : l.fused)
      title += " + " + f;
    box(int(i), label, title, l.slowFallback.empty() ? "#e8f0fb" : "#fde2e2");
    for (int p : l.producers) {
      double from = yOf(p) + boxH, to = yOf(int(i));
      if (p + 1 == int(i)) {
        os << llvm::formatv("<line x1=\"{0}\" y1=\"{1:F1}\" x2=\"{0}\" y2=\"{2:F1}\" "
                            "stroke=\"#666\"/>\n",
                            left + 24, from, to);
        continue;
      }
      double x = left + boxW, reach = std::min(16.0 + 10.0 * (int(i) - p), width - x - 10);
      double y1 = yOf(p) + boxH / 2, y2 = to + boxH / 2;
      os << llvm::formatv("<path d=\"M{0} {1:F1} C{2:F1} {1:F1} {2:F1} {3:F1} {0} {3:F1}\" "
                          "fill=\"none\" stroke=\"#4e79a7\"/>\n",
                          x, y1, x + reach, y2);
    }
  }
  os << "</svg>\n";
  return llvm::Error::success();
}

} // namespace kiln::report
