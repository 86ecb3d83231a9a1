//===- FoldQDQTest.cpp ----------------------------------------------------===//
//
// The oracle is the graph before the pass, run by the reference
// interpreter: the QDQ groups in float, as ONNX defines them. The int8 ops
// requantize as TFLite does (a fixed-point multiplier), which may land one
// step away from the float result on a near tie, so results are compared
// within one quantization step of the u8/i8 outputs.
//
//===----------------------------------------------------------------------===//

#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpViews.h"
#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

#include <utility>

namespace kiln {
namespace {

using namespace test;

/// Within one step of an integer output whose largest magnitude is ~128-255
/// (outputsClose scales the tolerance by it).
constexpr double kOneStep = 1.5 / 128;

Value *scalarConst(Graph &g, llvm::StringRef name, DType dt, double v) {
  Tensor t(TensorType(dt, {}));
  t.setFromDouble(0, v);
  return g.addConstant(name, std::move(t));
}

/// QuantizeLinear(x) to `dt` with one scale and zero point.
Value *quantize(Graph &g, llvm::StringRef name, Value *x, double scale,
                int zp, DType dt) {
  return addNode(g, OpKind::QuantizeLinear, name,
                 {x, scalarConst(g, (name + "_scale").str(), DType::F32, scale),
                  scalarConst(g, (name + "_zp").str(), dt, zp)})
      ->getOutput();
}

Value *dequantize(Graph &g, llvm::StringRef name, Value *q, double scale,
                  int zp) {
  return addNode(g, OpKind::DequantizeLinear, name,
                 {q, scalarConst(g, (name + "_scale").str(), DType::F32, scale),
                  scalarConst(g, (name + "_zp").str(), q->getType().dtype, zp)})
      ->getOutput();
}

/// Int8 weights [O, ...] of small varied values, dequantized per channel
/// along `axis` (scales 0.01 * (c + 1)).
Value *perChannelWeights(Graph &g, llvm::StringRef name,
                         llvm::ArrayRef<int64_t> shape, int64_t axis) {
  Tensor w(TensorType(DType::I8, shape));
  for (int64_t i = 0; i < w.numElements(); ++i)
    w.data<int8_t>()[i] = int8_t((i * 37) % 255 - 127);
  int64_t channels = shape[axis];
  Tensor scale(TensorType(DType::F32, {channels}));
  Tensor zp(TensorType(DType::I8, {channels}));
  for (int64_t c = 0; c < channels; ++c) {
    scale.data<float>()[c] = 0.01f * float(c + 1);
    zp.data<int8_t>()[c] = 0;
  }
  return addNode(g, OpKind::DequantizeLinear, name,
                 {g.addConstant((name + "_q").str(), std::move(w)),
                  g.addConstant((name + "_scale").str(), std::move(scale)),
                  g.addConstant((name + "_zp").str(), std::move(zp))},
                 {{"axis", Attr::ofInt(axis)}})
      ->getOutput();
}

/// Int32 bias of `n` values at scale `scale`, dequantized.
Value *bias(Graph &g, llvm::StringRef name, int64_t n, double scale) {
  Tensor b(TensorType(DType::I32, {n}));
  for (int64_t c = 0; c < n; ++c)
    b.data<int32_t>()[c] = int32_t(c * 97 - 150);
  Value *raw = g.addConstant((name + "_q").str(), std::move(b));
  return addNode(g, OpKind::DequantizeLinear, name,
                 {raw, scalarConst(g, (name + "_scale").str(), DType::F32, scale)})
      ->getOutput();
}

/// f32 x -> Q(u8) -> DQ -> Conv(per-channel int8 w, int32 bias) -> Relu
/// -> Q(u8) -> DQ -> AveragePool -> Q(u8) -> DQ -> "y".
GraphBuilder convChain() {
  return [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 3, 6, 6}));
    Value *xq = dequantize(g, "x_dq", quantize(g, "x_q", x, 0.01, 128, DType::U8),
                           0.01, 128);
    // The bias at one input-times-weight scale for all channels is off for
    // channels 1 and 2 (0.01 * 0.02, 0.01 * 0.03): requantized by the pass.
    Node *conv = addNode(g, OpKind::Conv, "conv",
                         {xq, perChannelWeights(g, "w", {3, 3, 3, 3}, 0),
                          bias(g, "b", 3, 0.01 * 0.01)},
                         {{"pads", Attr::ofInts({1, 1, 1, 1})}});
    Node *relu = addNode(g, OpKind::Relu, "relu", {conv->getOutput()});
    Value *c = dequantize(g, "c_dq",
                          quantize(g, "c_q", relu->getOutput(), 0.05, 0, DType::U8),
                          0.05, 0);
    Node *pool = addNode(g, OpKind::AveragePool, "pool", {c},
                         {{"kernel_shape", Attr::ofInts({2, 2})},
                          {"strides", Attr::ofInts({2, 2})}});
    Value *y = dequantize(g, "y_dq",
                          quantize(g, "y_q", pool->getOutput(), 0.05, 0, DType::U8),
                          0.05, 0);
    g.addOutput("y", y);
  };
}

TEST(FoldQDQ, ConvGroupsBecomeInt8Ops) {
  auto ref = buildGraph(convChain()), g = buildGraph(convChain());
  auto pass = createFoldQDQPass();
  EXPECT_TRUE(runPass(*pass, *g));
  Node *conv = findOnly(*g, OpKind::Conv);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->getInput(0)->getType().dtype, DType::I8);
  EXPECT_EQ(conv->getInput(1)->getType().quant.scales.size(), 3u);
  EXPECT_EQ(conv->getInput(2)->getType().dtype, DType::I32);
  EXPECT_EQ(fusedActivation(*conv).getKind(), ActivationKind::Relu);
  EXPECT_EQ(countOps(*g, OpKind::Relu), 0u);
  // u8 zero point 0 is int8 -128.
  EXPECT_EQ(conv->getOutput()->getType().quant.zeroPoints[0], -128);
  Node *pool = findOnly(*g, OpKind::AveragePool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->getInput(0), conv->getOutput());
  // Only the model input's quantization is left of the Q/DQ nodes.
  EXPECT_EQ(countOps(*g, OpKind::QuantizeLinear), 1u);
  EXPECT_EQ(countOps(*g, OpKind::DequantizeLinear), 1u);
  EXPECT_EQ(g->getOutputs()[0].value->getProducer()->getKind(),
            OpKind::Dequantize);
  EXPECT_TRUE(equivalent(*ref, *g, 1, kOneStep));
  EXPECT_TRUE(equivalent(*ref, *g, 7, kOneStep));
  EXPECT_FALSE(runPass(*pass, *g));
}

/// x -> Q(i8) -> DQ -> Gemm(transB, per-channel w, bias) -> Q(i8) -> "y",
/// the raw int8 output as the model gives it.
GraphBuilder gemm(bool transB) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32({2, 5}));
    Value *xq = dequantize(g, "x_dq", quantize(g, "x_q", x, 0.02, 3, DType::I8),
                           0.02, 3);
    Node *gemm = addNode(
        g, OpKind::Gemm, "gemm",
        {xq, perChannelWeights(g, "w", transB ? Shape{4, 5} : Shape{5, 4},
                               transB ? 0 : 1),
         bias(g, "b", 4, 0.02 * 0.01)},
        {{"transB", Attr::ofInt(transB)}});
    g.addOutput("y", quantize(g, "y_q", gemm->getOutput(), 0.01, -5, DType::I8));
  };
}

TEST(FoldQDQ, GemmBecomesInt8MatMul) {
  for (bool transB : {false, true}) {
    SCOPED_TRACE(transB ? "transB" : "B as is");
    auto ref = buildGraph(gemm(transB)), g = buildGraph(gemm(transB));
    auto pass = createFoldQDQPass();
    EXPECT_TRUE(runPass(*pass, *g));
    EXPECT_EQ(countOps(*g, OpKind::Gemm), 0u);
    Node *mm = findOnly(*g, OpKind::MatMul);
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->getInput(1)->getType().shape, Shape({5, 4}));
    EXPECT_EQ(mm->getInput(1)->getType().quant.axis, 1);
    EXPECT_TRUE(equivalent(*ref, *g, 3, kOneStep));
  }
}

/// x -> Q(i8, zero point 37) -> DQ -> Pad(constant `fill`) -> Q(i8) -> "y".
GraphBuilder padGroup(float fill) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 3, 3}));
    Value *xq = dequantize(g, "x_dq", quantize(g, "x_q", x, 0.02, 37, DType::I8),
                           0.02, 37);
    Node *pad = addNode(g, OpKind::Pad, "pad", {xq},
                        {{"pads", Attr::ofInts({0, 0, 1, 2, 0, 0, 2, 1})},
                         {"value", Attr::ofFloat(fill)}});
    g.addOutput("y", quantize(g, "y_q", pad->getOutput(), 0.02, 37, DType::I8));
  };
}

TEST(FoldQDQ, PadFillsWithTheQuantizedValue) {
  // A real 0 is the zero point 37 (not a raw 0, which would mean -0.74);
  // 0.5 is 25 steps above it.
  for (auto [fill, raw] : {std::pair(0.0f, 37.0f), std::pair(0.5f, 62.0f)}) {
    SCOPED_TRACE(fill);
    auto ref = buildGraph(padGroup(fill)), g = buildGraph(padGroup(fill));
    auto pass = createFoldQDQPass();
    EXPECT_TRUE(runPass(*pass, *g));
    Node *pad = findOnly(*g, OpKind::Pad);
    ASSERT_NE(pad, nullptr);
    EXPECT_EQ(pad->getOutput()->getType().dtype, DType::I8);
    EXPECT_EQ(PadView(*pad).value(), raw);
    EXPECT_TRUE(equivalent(*ref, *g, 5, kOneStep));
  }
}

/// x -> Q(i8) -> DQ -> `kind` -> Q(i8, outScale) -> "y".
GraphBuilder unaryGroup(OpKind kind, double outScale) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32({8}));
    Value *xq = dequantize(g, "x_dq", quantize(g, "x_q", x, 0.1, 0, DType::I8),
                           0.1, 0);
    Node *n = addNode(g, kind, "op", {xq});
    g.addOutput("y", quantize(g, "y_q", n->getOutput(), outScale, 0, DType::I8));
  };
}

TEST(FoldQDQ, GroupsWithoutInt8FormStayFloat) {
  struct Case {
    const char *why;
    GraphBuilder build;
  };
  Case cases[] = {
      {"weights computed at run time",
       [](Graph &g) {
         Value *x = g.addInput("x", f32({2, 3}));
         Value *w = g.addInput("w", f32({3, 2}));
         Value *xq = dequantize(g, "x_dq", quantize(g, "x_q", x, 0.1, 0, DType::I8),
                                0.1, 0);
         Node *mm = addNode(g, OpKind::MatMul, "mm", {xq, w});
         g.addOutput("y", quantize(g, "y_q", mm->getOutput(), 0.1, 0, DType::I8));
       }},
      {"Sigmoid at a scale other than TFLite's 1/256",
       unaryGroup(OpKind::Sigmoid, 0.01)},
      {"a float op with no int8 form", unaryGroup(OpKind::Exp, 0.1)},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.why);
    auto ref = buildGraph(c.build), g = buildGraph(c.build);
    size_t nodes = g->getNumNodes();
    auto pass = createFoldQDQPass();
    EXPECT_FALSE(runPass(*pass, *g));
    EXPECT_EQ(g->getNumNodes(), nodes);
    EXPECT_EQ(countOps(*g, OpKind::Quantize), 0u);
    EXPECT_TRUE(equivalent(*ref, *g));
  }
}

} // namespace
} // namespace kiln
