// The report's layer graph, from a report made here by hand: a box per
// layer and for the inputs, an edge per producer, labels escaped, the slow
// fallback marked, and the same bytes on every run. The same file tests
// both renderers (layer_graph_graphviz_test, layer_graph_arcs_test).

#include "compiler/report/LayerGraph.h"

#include "llvm/ADT/StringRef.h"
#include "gtest/gtest.h"

#include <string>

namespace kiln::report {
namespace {

/// inputs -> 0 Conv -> 1 Relu -> 2 Add (reading 0 and 1: a skip) -> 3 Gather.
/// Layer 3 is a slow fallback; layer 1's name needs escaping.
CompileReport fourLayers() {
  CompileReport r;
  auto layer = [&](std::string op, std::string name, std::vector<int> producers) {
    LayerReport l;
    l.op = std::move(op);
    l.name = std::move(name);
    l.producers = std::move(producers);
    r.layers.push_back(std::move(l));
  };
  layer("Conv", "conv", {kGraphInput});
  layer("Relu", "a<b>&\"c\"\\n", {0});
  layer("Add", "add", {0, 1});
  layer("Gather", "gather", {2, kGraphInput});
  r.layers[0].strategy = "winograd F(4x4,3x3)";
  r.layers[0].fused = {"Relu 'relu0'"};
  r.layers[3].slowFallback = "scalar gather";
  return r;
}

std::string render(const CompileReport &r) {
  std::string svg;
  llvm::raw_string_ostream os(svg);
  llvm::Error err = writeLayerGraphSvg(r, os);
  EXPECT_FALSE(err) << llvm::toString(std::move(err));
  return svg;
}

size_t occurrences(llvm::StringRef text, llvm::StringRef what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != llvm::StringRef::npos;
       at = text.find(what, at + what.size()))
    ++n;
  return n;
}

TEST(LayerGraph, OneSvgElementWithTheIdThePageUses) {
  std::string svg = render(fourLayers());
  llvm::StringRef s(svg);
  EXPECT_TRUE(s.starts_with("<svg id=\"layer-graph\"")) << s.take_front(200).str();
  EXPECT_TRUE(s.rtrim().ends_with("</svg>"));
  EXPECT_EQ(occurrences(s, "<svg"), 1u);
  EXPECT_FALSE(s.contains("<!--")) << "comments (a tool's version) are dropped";
  EXPECT_FALSE(s.contains("<?xml"));
}

TEST(LayerGraph, EveryLayerLabelledAndEscaped) {
  CompileReport r = fourLayers();
  std::string svg = render(r);
  EXPECT_TRUE(llvm::StringRef(svg).contains("winograd F(4x4,3x3)"));
  EXPECT_TRUE(llvm::StringRef(svg).contains("graph inputs"));
  for (llvm::StringRef name : {"conv", "add", "gather"})
    EXPECT_TRUE(llvm::StringRef(svg).contains(name)) << name.str();
  // The raw name would break the markup.
  EXPECT_FALSE(llvm::StringRef(svg).contains("a<b>"));
  EXPECT_TRUE(llvm::StringRef(svg).contains("a&lt;b&gt;&amp;"));
  // The slow fallback's fill, once.
  EXPECT_EQ(occurrences(svg, "#fde2e2"), 1u);
}

#ifdef KILN_TEST_GRAPHVIZ
/// dot draws each node and edge as a <g class="node"> / <g class="edge">.
TEST(LayerGraph, GraphvizDrawsABoxPerLayerAndAnEdgePerProducer) {
  CompileReport r = fourLayers();
  std::string svg = render(r);
  EXPECT_EQ(occurrences(svg, "class=\"node\""), r.layers.size() + 1);
  size_t edges = 0;
  for (const LayerReport &l : r.layers)
    edges += l.producers.size();
  EXPECT_EQ(occurrences(svg, "class=\"edge\""), edges);
  // The tooltip names what was fused.
  EXPECT_TRUE(llvm::StringRef(svg).contains("+ Relu &#39;relu0&#39;"));
}
#else
/// The plain drawing: a rect per layer and for the inputs; a line to the
/// next layer, an arc (a path) to any later one.
TEST(LayerGraph, ArcsDrawABoxPerLayerAndALineOrArcPerProducer) {
  CompileReport r = fourLayers();
  std::string svg = render(r);
  EXPECT_EQ(occurrences(svg, "<rect"), r.layers.size() + 1);
  // From the inputs: a line to layer 0, an arc to layer 3; 0->1, 1->2 and
  // 2->3 lines, 0->2 an arc.
  EXPECT_EQ(occurrences(svg, "<line"), 4u);
  EXPECT_EQ(occurrences(svg, "<path"), 2u);
}
#endif

TEST(LayerGraph, SameReportSameBytes) {
  EXPECT_EQ(render(fourLayers()), render(fourLayers()));
  CompileReport empty;
  std::string svg = render(empty);
  EXPECT_TRUE(llvm::StringRef(svg).contains("graph inputs"));
}

} // namespace
} // namespace kiln::report
