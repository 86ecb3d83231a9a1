//===- LayerGraphGraphviz.cpp - The layer graph laid out by Graphviz ------===//
//
// Graphviz's dot layout, linked from Debian's libgraphviz. Its plugins are
// linked in and preloaded (no plugin configuration is read), and without the
// pango plugin text sizes come from Graphviz's built-in font metrics, so the
// picture depends on the report alone, not on the fonts or plugins of the
// machine: same report, same bytes.
//
//===----------------------------------------------------------------------===//

#include "compiler/report/LayerGraph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
}

namespace kiln::report {

const char kLayerGraphCaption[] =
    "The layers (laid out by Graphviz's dot), each joined to the layers that read its "
    "result. Red boxes run a slow fallback kernel; hover for what was fused.";

namespace {

lt_symlist_t kPlugins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {nullptr, nullptr}};

/// Graphviz reports errors through one process-wide callback; it collects
/// them here rather than printing (only kilnc prints).
std::mutex graphvizMutex;
std::string graphvizErrors;
int collectError(char *message) {
  graphvizErrors += message;
  return 0;
}

/// Graphviz takes `char *` where it only reads.
char *mut(const char *s) { return const_cast<char *>(s); }

void set(void *object, const char *name, const std::string &value) {
  agsafeset(object, mut(name), mut(value.c_str()), mut(""));
}

/// dot reads `\` in labels as an escape (\n, \N): keep it literal.
std::string labelText(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

struct GraphvizContext {
  GVC_t *gvc = gvContextPlugins(kPlugins, 0);
  Agraph_t *graph = agopen(mut("layers"), Agdirected, nullptr);
  bool laidOut = false;
  ~GraphvizContext() {
    if (laidOut)
      gvFreeLayout(gvc, graph);
    agclose(graph);
    gvFreeContext(gvc);
  }
};

/// The <svg> element of dot's output, with the id the page refers to; the
/// XML prolog, the doctype and the comments (Graphviz's version among them)
/// are dropped. nullopt when there is no <svg>.
std::optional<std::string> svgElement(llvm::StringRef out) {
  size_t start = out.find("<svg");
  if (start == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef svg = out.substr(start + 4);
  std::string cleaned = "<svg id=\"layer-graph\"";
  while (!svg.empty()) {
    size_t comment = svg.find("<!--");
    cleaned += svg.take_front(comment).str();
    if (comment == llvm::StringRef::npos)
      break;
    size_t end = svg.find("-->", comment);
    svg = end == llvm::StringRef::npos ? "" : svg.drop_front(end + 3);
    if (svg.starts_with("\n"))
      svg = svg.drop_front();
  }
  return cleaned;
}

} // namespace

llvm::Error writeLayerGraphSvg(const CompileReport &r, llvm::raw_ostream &os) {
  std::lock_guard<std::mutex> lock(graphvizMutex);
  graphvizErrors.clear();
  agseterrf(collectError);
  agseterr(AGERR);
  GraphvizContext c;
  Agraph_t *g = c.graph;
  agattr(g, AGRAPH, mut("nodesep"), mut("0.25"));
  agattr(g, AGRAPH, mut("ranksep"), mut("0.3"));
  agattr(g, AGNODE, mut("shape"), mut("box"));
  agattr(g, AGNODE, mut("style"), mut("rounded,filled"));
  agattr(g, AGNODE, mut("fillcolor"), mut("#e8f0fb"));
  agattr(g, AGNODE, mut("color"), mut("#666666"));
  agattr(g, AGNODE, mut("fontname"), mut("Helvetica"));
  agattr(g, AGNODE, mut("fontsize"), mut("10"));
  agattr(g, AGNODE, mut("height"), mut("0.3"));
  // Room for a browser font a little wider than the metrics dot sized with.
  agattr(g, AGNODE, mut("margin"), mut("0.25,0.05"));
  agattr(g, AGEDGE, mut("color"), mut("#666666"));
  agattr(g, AGEDGE, mut("arrowsize"), mut("0.6"));

  Agnode_t *inputs = agnode(g, mut("inputs"), 1);
  set(inputs, "label", "graph inputs");
  set(inputs, "fillcolor", "#eeeeee");
  std::vector<Agnode_t *> layers;
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerReport &l = r.layers[i];
    std::string name = "L" + std::to_string(i);
    Agnode_t *n = agnode(g, mut(name.c_str()), 1);
    std::string label = layerLabel(r, i), tooltip = label;
    for (const std::string &f : l.fused)
      tooltip += " + " + f;
    if (!l.slowFallback.empty()) {
      set(n, "fillcolor", "#fde2e2");
      tooltip += " (slow fallback: " + l.slowFallback + ")";
    }
    set(n, "label", labelText(label));
    set(n, "tooltip", labelText(tooltip));
    layers.push_back(n);
    for (int p : l.producers)
      agedge(g, p == kGraphInput ? inputs : layers[p], n, nullptr, 1);
  }

  if (gvLayout(c.gvc, g, "dot") != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the report's layer graph: Graphviz could not lay "
                                   "it out: " + graphvizErrors);
  c.laidOut = true;
  char *data = nullptr;
  unsigned length = 0;
  if (gvRenderData(c.gvc, g, "svg", &data, &length) != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the report's layer graph: Graphviz could not draw "
                                   "it: " + graphvizErrors);
  std::unique_ptr<char, void (*)(char *)> owned(data, gvFreeRenderData);
  std::optional<std::string> svg = svgElement(llvm::StringRef(data, length));
  if (!svg)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the report's layer graph: Graphviz drew no <svg>");
  os << *svg;
  return llvm::Error::success();
}

} // namespace kiln::report
