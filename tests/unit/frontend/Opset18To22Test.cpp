//===- Opset18To22Test.cpp - Opsets 18 to 22 import with kiln's semantics -===//
//
// What opsets 18 to 22 changed, imported: the new forms give the nodes the
// older forms give, and the reference interpreter runs them to results
// computed here from the ONNX spec. Their outputs against ONNX Runtime's are
// in //tests/conformance:conformance_test's Opset18To22 cases.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/interpreter/Interpreter.h"
#include "tests/unit/frontend/ImportTestUtil.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln {
namespace {

using test::importError;
using test::importOk;
using test::ModelBuilder;
using test::runOnInput;
using test::singleNode;

TEST(OpsetAdapters, Opset18ReduceAxesInputAndAttributeGiveTheSameNode) {
  ModelBuilder old(17);
  old.input("x", {2, 3}).output("y", {2, 1});
  test::setInts(old.node("ReduceMax", {"x"}, {"y"}, "max"), "axes", {1});
  ModelBuilder current(18);
  current.input("x", {2, 3}).output("y", {2, 1});
  current.int64Initializer("axes", {1}, {-1});
  current.node("ReduceMax", {"x", "axes"}, {"y"}, "max");
  for (ModelBuilder *b : {&old, &current}) {
    auto g = importOk(*b);
    ASSERT_TRUE(g);
    const Node *n = singleNode(*g, OpKind::ReduceMax);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->getNumInputs(), 1u);
    EXPECT_EQ(runOnInput(*g, {2, 3}, {1, 5, 2, -4, -3, -6}), std::vector<float>({5, -3}));
  }
  ModelBuilder attr(18);
  attr.input("x", {2, 3}).output("y");
  test::setInts(attr.node("ReduceMax", {"x"}, {"y"}, "max"), "axes", {1});
  EXPECT_EQ(importError(attr), "node 'max' (ReduceMax): attribute 'axes' is an input since opset 18");
}

TEST(OpsetAdapters, Opset18SplitNumOutputs) {
  ModelBuilder b(18);
  b.input("x", {7}).output("a").output("b").output("c");
  test::setInt(b.node("Split", {"x"}, {"a", "b", "c"}, "split"), "num_outputs", 3);
  auto g = importOk(b);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::Split);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->getInts("split"), llvm::ArrayRef<int64_t>({3, 3, 1}));

  ModelBuilder tooFew(18);
  tooFew.input("x", {2}).output("a").output("b").output("c");
  test::setInt(tooFew.node("Split", {"x"}, {"a", "b", "c"}, "split"), "num_outputs", 3);
  EXPECT_EQ(importError(tooFew),
            "node 'split' (Split): cannot split f32[2] into 3 parts along axis 0");
  ModelBuilder mismatch(18);
  mismatch.input("x", {6}).output("a").output("b");
  test::setInt(mismatch.node("Split", {"x"}, {"a", "b"}, "split"), "num_outputs", 3);
  EXPECT_EQ(importError(mismatch),
            "node 'split' (Split): num_outputs is 3 but the node has 2 outputs");
}

TEST(OpsetAdapters, Opset18PadAxesPadOnlyThoseAxes) {
  ModelBuilder b(18);
  b.input("x", {2, 2}).output("y", {2, 5});
  b.int64Initializer("pads", {2}, {1, 2}).int64Initializer("axes", {1}, {-1});
  b.initializer("v", {}, {7.0f});
  b.node("Pad", {"x", "pads", "v", "axes"}, {"y"}, "pad");
  auto g = importOk(b);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::Pad);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->getInts("pads"), llvm::ArrayRef<int64_t>({0, 1, 0, 2}));
  EXPECT_EQ(runOnInput(*g, {2, 2}, {1, 2, 3, 4}), std::vector<float>({7, 1, 2, 7, 7, 7, 3, 4, 7, 7}));

  ModelBuilder repeated(18);
  repeated.input("x", {2, 2}).output("y");
  repeated.int64Initializer("pads", {4}, {1, 1, 1, 1}).int64Initializer("axes", {2}, {1, -1});
  repeated.node("Pad", {"x", "pads", "", "axes"}, {"y"}, "pad");
  EXPECT_EQ(importError(repeated), "node 'pad' (Pad): axes [1,-1] repeat an axis");
}

TEST(OpsetAdapters, Opset19PadWrap) {
  ModelBuilder b(19);
  b.input("x", {1, 3}).output("y", {1, 7});
  b.int64Initializer("pads", {4}, {0, 2, 0, 2});
  test::setString(b.node("Pad", {"x", "pads"}, {"y"}, "pad"), "mode", "wrap");
  auto g = importOk(b);
  ASSERT_TRUE(g);
  EXPECT_EQ(runOnInput(*g, {1, 3}, {1, 2, 3}), std::vector<float>({2, 3, 1, 2, 3, 1, 2}));
}

TEST(OpsetAdapters, Opset18ResizeAxesAndAspectRatio) {
  // sizes for axes (3, 2) only; not_smaller takes the larger scale, 2, for
  // both, and rounds 3 * 2 = 6 and 2 * 2 = 4.
  ModelBuilder b(18);
  b.input("x", {1, 1, 2, 3}).output("y");
  b.int64Initializer("sizes", {2}, {5, 4});
  onnx::NodeProto &resize = b.node("Resize", {"x", "", "", "sizes"}, {"y"}, "resize");
  test::setInts(resize, "axes", {3, 2});
  test::setString(resize, "keep_aspect_ratio_policy", "not_smaller");
  auto g = importOk(b);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::Resize);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->getInts("sizes"), llvm::ArrayRef<int64_t>({1, 1, 4, 6}));
  EXPECT_EQ(n->getFloats("scales"), llvm::ArrayRef<float>({1, 1, 2, 2}));

  // With scales, the policy changes nothing.
  ModelBuilder byScales(18);
  byScales.input("x", {1, 1, 2, 3}).output("y");
  byScales.initializer("scales", {4}, {1, 1, 2, 1});
  test::setString(byScales.node("Resize", {"x", "", "scales"}, {"y"}, "resize"),
                  "keep_aspect_ratio_policy", "not_larger");
  auto scaled = importOk(byScales);
  ASSERT_TRUE(scaled);
  EXPECT_EQ(scaled->getOutputs()[0].value->getType().shape, Shape({1, 1, 4, 3}));

  ModelBuilder antialias(18);
  antialias.input("x", {1, 1, 4, 4}).output("y");
  antialias.initializer("scales", {4}, {1, 1, 0.5f, 0.5f});
  onnx::NodeProto &down = antialias.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
  test::setString(down, "mode", "linear");
  test::setInt(down, "antialias", 1);
  EXPECT_EQ(importError(antialias),
            "node 'resize' (Resize): antialias when downsampling is not supported");

  ModelBuilder badAxes(18);
  badAxes.input("x", {1, 1, 4, 4}).output("y");
  badAxes.initializer("scales", {2}, {2, 2});
  test::setInts(badAxes.node("Resize", {"x", "", "scales"}, {"y"}, "resize"), "axes",
                {2, 4});
  EXPECT_EQ(importError(badAxes), "node 'resize' (Resize): axis 4 is out of range for rank 4");
}

TEST(OpsetAdapters, Opset20GeluIsItsFormula) {
  for (const char *approximate : {"none", "tanh"}) {
    ModelBuilder b(20);
    b.input("x", {4}).output("y", {4});
    test::setString(b.node("Gelu", {"x"}, {"y"}, "gelu"), "approximate", approximate);
    auto g = importOk(b);
    ASSERT_TRUE(g);
    const std::vector<float> x = {-2, -0.5f, 0.5f, 3};
    std::vector<float> y = runOnInput(*g, {4}, x);
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      double v = x[i];
      double want = llvm::StringRef(approximate) == "none"
                        ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
                        : 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
      EXPECT_NEAR(y[i], want, 1e-6) << approximate << " at " << v;
    }
  }
  ModelBuilder bad(20);
  bad.input("x", {4}).output("y");
  test::setString(bad.node("Gelu", {"x"}, {"y"}, "gelu"), "approximate", "sigmoid");
  EXPECT_EQ(importError(bad),
            "node 'gelu' (Gelu): attribute 'approximate' must be \"none\" or \"tanh\"");
}

TEST(OpsetAdapters, GroupNormalizationScalesPerGroupThenPerChannel) {
  // Two groups of one channel of two elements: each normalizes to -1, 1
  // (epsilon 0); opset 18 scales and shifts per group, 21 per channel.
  for (int64_t opset : {18, 21}) {
    ModelBuilder b(opset);
    b.input("x", {1, 2, 2}).output("y", {1, 2, 2});
    b.initializer("scale", {2}, {2, 3}).initializer("bias", {2}, {10, 20});
    onnx::NodeProto &gn = b.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}, "gn");
    test::setInt(gn, "num_groups", 2);
    test::setFloat(gn, "epsilon", 0);
    auto g = importOk(b);
    ASSERT_TRUE(g);
    EXPECT_EQ(runOnInput(*g, {1, 2, 2}, {1, 3, 5, 9}), std::vector<float>({8, 12, 17, 23}));
  }
  ModelBuilder uneven(18);
  uneven.input("x", {1, 3, 2}).output("y");
  uneven.initializer("scale", {2}, {1, 1}).initializer("bias", {2}, {0, 0});
  test::setInt(uneven.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}, "gn"),
               "num_groups", 2);
  EXPECT_EQ(importError(uneven),
            "node 'gn' (GroupNormalization): num_groups 2 does not divide the 3 channels");
}

TEST(OpsetAdapters, Opset19To21UnsupportedAttributesAreErrors) {
  ModelBuilder pool(19);
  pool.input("x", {1, 1, 5, 5}).output("y");
  onnx::NodeProto &avg = pool.node("AveragePool", {"x"}, {"y"}, "pool");
  test::setInts(avg, "kernel_shape", {2, 2});
  test::setInts(avg, "dilations", {2, 2});
  EXPECT_EQ(importError(pool),
            "node 'pool' (AveragePool): dilations other than 1 are not supported");

  ModelBuilder blocked(21);
  blocked.input("x", {2, 4}).output("y");
  blocked.initializer("s", {2, 2}, {1, 1, 1, 1});
  test::setInt(blocked.node("DequantizeLinear", {"x", "s"}, {"y"}, "dq"), "block_size", 2);
  EXPECT_EQ(importError(blocked),
            "node 'dq' (DequantizeLinear): block quantization (block_size) is not supported");

  ModelBuilder dft(20);
  dft.input("x", {1, 8, 1}).output("y");
  test::setInt(dft.node("DFT", {"x"}, {"y"}, "dft"), "axis", 1);
  EXPECT_EQ(importError(dft), "node 'dft' (DFT): attribute 'axis' is an input since opset 20");
}

} // namespace
} // namespace kiln
