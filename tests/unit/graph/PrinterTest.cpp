//===- PrinterTest.cpp - Text and Graphviz forms --------------------------===//

#include "compiler/graph/Printer.h"

#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TensorType f32(llvm::ArrayRef<int64_t> shape) {
  return TensorType(DType::F32, shape);
}

Node *add(Graph &g, OpKind kind, llvm::StringRef name,
          llvm::ArrayRef<Value *> inputs, AttrMap attrs = {}) {
  auto n = g.addNode(kind, name, inputs, std::move(attrs));
  if (!n)
    llvm::report_fatal_error(llvm::StringRef(llvm::toString(n.takeError())));
  return *n;
}

/// x -> conv(w, b) -> relu -> "y", and a Dropout with an absent optional
/// input and two results -> "mask \"m\"".
void buildTiny(Graph &g) {
  Value *x = g.addInput("x", f32({1, 2, 4, 4}));
  Value *w = g.addConstant("w", Tensor(f32({3, 2, 3, 3})));
  Value *b = g.addConstant("b", Tensor(f32({3})));
  Value *mode = g.addConstant(
      "mode", Tensor::fromValues<uint8_t>(DType::Bool, {}, {uint8_t(0)}));
  Node *conv = add(g, OpKind::Conv, "conv", {x, w, b},
                   {{"pads", Attr::ofInts({1, 1, 1, 1})},
                    {"group", Attr::ofInt(1)},
                    {"auto_pad", Attr::ofString("NOTSET")}});
  Node *relu = add(g, OpKind::Relu, "relu", {conv->getOutput()});
  Node *drop =
      add(g, OpKind::Dropout, "drop", {relu->getOutput(), nullptr, mode});
  g.addOutput("y", drop->getOutput(0));
  g.addOutput("mask \"m\"", drop->getOutput(1));
}

TEST(Printer, TextForm) {
  Graph g("tiny");
  buildTiny(g);
  std::string text;
  llvm::raw_string_ostream os(text);
  printGraph(g, os);
  // group=1 and auto_pad="NOTSET" are Conv's defaults, so they are implied.
  EXPECT_EQ(text, "graph tiny {\n"
                  "  input %x : f32[1,2,4,4]\n"
                  "  const %w : f32[3,2,3,3]\n"
                  "  const %b : f32[3] = [0,0,0]\n"
                  "  const %mode : bool[] = [0]\n"
                  "  %conv = Conv(%x, %w, %b) {pads=[1,1,1,1]} : f32[1,3,4,4]\n"
                  "  %relu = Relu(%conv) : f32[1,3,4,4]\n"
                  "  %drop:0, %drop:1 = Dropout(%relu, none, %mode) : "
                  "f32[1,3,4,4], bool[1,3,4,4]\n"
                  "  output \"y\" = %drop:0\n"
                  "  output \"mask \\\"m\\\"\" = %drop:1\n"
                  "}\n");
}

TEST(Printer, NonDefaultAttributesInNameOrder) {
  Graph g("attrs");
  Value *x = g.addInput("x", f32({1, 1, 4, 4}));
  Node *pool = add(g, OpKind::MaxPool, "pool", {x},
                   {{"strides", Attr::ofInts({2, 2})},
                    {"kernel_shape", Attr::ofInts({2, 2})},
                    {"auto_pad", Attr::ofString("VALID")}});
  g.addOutput("y", pool->getOutput());
  std::string text;
  llvm::raw_string_ostream os(text);
  printGraph(g, os);
  EXPECT_NE(text.find("  %pool = MaxPool(%x) {auto_pad=\"VALID\", "
                      "kernel_shape=[2,2], strides=[2,2]} : f32[1,1,2,2]\n"),
            std::string::npos)
      << text;
}

TEST(Printer, DotForm) {
  Graph g("tiny \"dot\"");
  buildTiny(g);
  std::string dot;
  llvm::raw_string_ostream os(dot);
  printGraphDot(g, os);
  llvm::StringRef text(dot);
  EXPECT_TRUE(text.starts_with("digraph \"tiny \\\"dot\\\"\" {\n")) << dot;
  EXPECT_TRUE(text.ends_with("}\n")) << dot;
  EXPECT_EQ(text.count('{'), text.count('}')) << dot;
  // Each node, labelled with op, name and result types.
  EXPECT_NE(dot.find("n0 [shape=box, style=rounded, "
                     "label=\"Conv\\nconv\\nf32[1,3,4,4]\"];"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("label=\"Relu\\nrelu\\nf32[1,3,4,4]\""),
            std::string::npos);
  EXPECT_NE(dot.find("label=\"Dropout\\ndrop\\nf32[1,3,4,4]\\nbool[1,3,4,4]\""),
            std::string::npos);
  // Sources and sinks have their own shapes; quotes are escaped.
  EXPECT_NE(dot.find("in0 [shape=invhouse, label=\"x\\nf32[1,2,4,4]\"];"),
            std::string::npos);
  EXPECT_NE(dot.find("c0 [shape=note, label=\"w\\nf32[3,2,3,3]\"];"),
            std::string::npos);
  EXPECT_NE(dot.find("out1 [shape=house, label=\"mask \\\"m\\\"\"];"),
            std::string::npos);
  // Edges from producers; a multi-result producer's edges carry the index.
  EXPECT_NE(dot.find("in0 -> n0;"), std::string::npos);
  EXPECT_NE(dot.find("c1 -> n0;"), std::string::npos);
  EXPECT_NE(dot.find("n0 -> n1;"), std::string::npos);
  EXPECT_NE(dot.find("c2 -> n2;"), std::string::npos);
  EXPECT_NE(dot.find("n2 -> out1 [label=\"1\"];"), std::string::npos);
  EXPECT_EQ(text.count(" -> "), 8u) << dot;
}

} // namespace
} // namespace kiln
