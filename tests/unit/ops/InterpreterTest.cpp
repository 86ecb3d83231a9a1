//===- InterpreterTest.cpp - runGraph, evaluateNode, kiln-only semantics ---===//
//
// What ONNX's test data cannot check: the interpreter's own contract, and
// the semantics kiln adds (fused activations, MatMul's bias, integer
// arithmetic, Cast saturation, uint8 quantization). Fused forms are checked against the
// composition of the unfused ops, which ONNX's data does check; the rest
// against values worked out by hand.
//
//===----------------------------------------------------------------------===//
#include "compiler/interpreter/Interpreter.h"
#include "compiler/ops/QuantizedTypes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln {
namespace {

/// Deterministic values in [-1, 1).
Tensor pattern(llvm::ArrayRef<int64_t> shape, unsigned seed) {
  Tensor t(TensorType(DType::F32, shape));
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = float(s >> 8) / float(1 << 23) - 1.0f;
  }
  return t;
}

Tensor f32(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> v) {
  return Tensor::fromValues<float>(DType::F32, shape, v);
}

template <typename T>
Tensor ints(DType t, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<T> v) {
  return Tensor::fromValues<T>(t, shape, v);
}

Node *mustAdd(Graph &g, OpKind k, llvm::StringRef name,
              llvm::ArrayRef<Value *> in, AttrMap attrs = {}) {
  auto n = g.addNode(k, name, in, std::move(attrs));
  if (!n) {
    ADD_FAILURE() << llvm::toString(n.takeError());
    return nullptr;
  }
  return *n;
}

std::vector<Tensor> mustRun(const Graph &g, llvm::ArrayRef<Tensor> inputs) {
  auto out = runGraph(g, inputs);
  if (!out) {
    ADD_FAILURE() << llvm::toString(out.takeError());
    return {};
  }
  return std::move(*out);
}

void expectClose(const Tensor &got, const Tensor &want) {
  ASSERT_EQ(got.getType(), want.getType());
  for (int64_t i = 0; i < got.numElements(); ++i) {
    float g = got.data<float>()[i], w = want.data<float>()[i];
    // Equal infinities, or NaN for NaN (Log or Sqrt of a negative value).
    if (std::isnan(w) ? std::isnan(g) : g == w)
      continue;
    ASSERT_NEAR(g, w, 1e-5 + 1e-5 * std::fabs(w)) << "element " << i;
  }
}

TEST(RunGraph, ChecksInputsAndNamesTheMismatch) {
  Graph g("net");
  Value *x = g.addInput("x", TensorType(DType::F32, {2}));
  g.addInput("y", TensorType(DType::F32, {2}));
  g.addOutput("out", mustAdd(g, OpKind::Relu, "r", {x})->getOutput());
  auto tooFew = runGraph(g, {f32({2}, {1, 2})});
  ASSERT_FALSE(bool(tooFew));
  EXPECT_EQ(llvm::toString(tooFew.takeError()),
            "graph 'net' has 2 inputs, got 1 tensors");
  auto wrongType = runGraph(g, {f32({2}, {1, 2}), f32({3}, {1, 2, 3})});
  ASSERT_FALSE(bool(wrongType));
  EXPECT_EQ(llvm::toString(wrongType.takeError()),
            "graph input 1 ('y') expects f32[2], got f32[3]");
}

TEST(RunGraph, ReturnsOutputsInOrderIncludingInputsAndConstants) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {3}));
  Value *c = g.addConstant("c", f32({3}, {10, 20, 30}));
  Node *add = mustAdd(g, OpKind::Add, "add", {x, c});
  Node *relu = mustAdd(g, OpKind::Relu, "relu", {add->getOutput()});
  Node *neg = mustAdd(g, OpKind::Sub, "neg", {relu->getOutput(), c});
  g.addOutput("last", neg->getOutput());
  g.addOutput("middle", add->getOutput());
  g.addOutput("input", x);
  g.addOutput("const", c);
  std::vector<Tensor> out = mustRun(g, {f32({3}, {-15, 1, -40})});
  ASSERT_EQ(out.size(), 4u);
  // add = [-5, 21, -10], relu = [0, 21, 0], minus c = [-10, 1, -30].
  EXPECT_EQ(out[0].values<float>(), llvm::ArrayRef<float>({-10, 1, -30}));
  EXPECT_EQ(out[1].values<float>(), llvm::ArrayRef<float>({-5, 21, -10}));
  EXPECT_EQ(out[2].values<float>(), llvm::ArrayRef<float>({-15, 1, -40}));
  EXPECT_EQ(out[3].values<float>(), llvm::ArrayRef<float>({10, 20, 30}));
}

TEST(RunGraph, PropagatesNodeErrors) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::I32, {2}));
  Value *y = g.addInput("y", TensorType(DType::I32, {2}));
  g.addOutput("q", mustAdd(g, OpKind::Div, "quot", {x, y})->getOutput());
  auto out = runGraph(g, {ints<int32_t>(DType::I32, {2}, {1, 2}),
                          ints<int32_t>(DType::I32, {2}, {1, 0})});
  ASSERT_FALSE(bool(out));
  EXPECT_EQ(llvm::toString(out.takeError()),
            "node 'quot' (Div): integer division by zero");
}

TEST(EvaluateNode, ChecksTensorTypesAgainstTheNode) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {2}));
  Node *n = mustAdd(g, OpKind::Tanh, "t", {x});
  Tensor wrong = f32({1}, {0});
  auto bad = evaluateNode(*n, {&wrong});
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "node 't' (Tanh): input 0 ('x') is f32[1], expected f32[2]");
  auto missing = evaluateNode(*n, {nullptr});
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("no tensor for input 0"),
            std::string::npos);
  Tensor good = f32({2}, {0, 1});
  auto ok = evaluateNode(*n, {&good});
  ASSERT_TRUE(bool(ok));
  EXPECT_FLOAT_EQ((*ok)[0].data<float>()[1], std::tanh(1.0f));
}

/// kiln.activation on Conv and MatMul must equal the separate activation op
/// applied to the unfused result, for every activation record with an op.
struct FusedCase {
  Activation activation;
  OpKind op;
  AttrMap opAttrs;
};

std::vector<FusedCase> fusedCases() {
  std::vector<FusedCase> cases = {
      {*Activation::make(ActivationKind::LeakyRelu, {0.2f}), OpKind::LeakyRelu,
       {{"alpha", Attr::ofFloat(0.2f)}}},
      {*Activation::make(ActivationKind::Clip, {-0.3f, 0.4f}), OpKind::Clip,
       {{"min", Attr::ofFloat(-0.3f)}, {"max", Attr::ofFloat(0.4f)}}},
  };
  for (unsigned k = 1; k < kNumActivationKinds; ++k) {
    auto kind = static_cast<ActivationKind>(k);
    const OpDef *def = lookupOpDef(activationName(kind));
    if (!def)
      continue;
    llvm::SmallVector<float, 2> params;
    for (const ActivationParam &p : activationParams(kind))
      params.push_back(p.defaultValue);
    cases.push_back({*Activation::make(kind, params), def->kind, {}});
  }
  return cases;
}

TEST(FusedSemantics, ConvActivationEqualsConvThenActivation) {
  for (const FusedCase &fc : fusedCases()) {
    SCOPED_TRACE(fc.activation.str());
    Graph g;
    Value *x = g.addInput("x", TensorType(DType::F32, {1, 4, 7, 6}));
    Value *w = g.addConstant("w", pattern({6, 2, 3, 3}, 1));
    Value *b = g.addConstant("b", pattern({6}, 2));
    AttrMap conv = {{"group", Attr::ofInt(2)},
                    {"strides", Attr::ofInts({2, 1})},
                    {"pads", Attr::ofInts({1, 0, 1, 2})}};
    AttrMap fused = conv;
    fused["kiln.activation"] = Attr::ofActivation(fc.activation);
    Node *plain = mustAdd(g, OpKind::Conv, "plain", {x, w, b}, conv);
    Node *act = mustAdd(g, fc.op, "act", {plain->getOutput()}, fc.opAttrs);
    Node *one = mustAdd(g, OpKind::Conv, "fused", {x, w, b}, fused);
    g.addOutput("separate", act->getOutput());
    g.addOutput("fused", one->getOutput());
    std::vector<Tensor> out = mustRun(g, {pattern({1, 4, 7, 6}, 3)});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(out[0].bitwiseEqual(out[1]));
  }
}

TEST(FusedSemantics, MatMulBiasAndActivationEqualMatMulAddActivation) {
  for (const FusedCase &fc : fusedCases()) {
    SCOPED_TRACE(fc.activation.str());
    Graph g;
    Value *a = g.addInput("a", TensorType(DType::F32, {2, 3, 5}));
    Value *w = g.addConstant("w", pattern({5, 4}, 4));
    Value *bias = g.addConstant("bias", pattern({4}, 5));
    Node *mm = mustAdd(g, OpKind::MatMul, "mm", {a, w});
    Node *add = mustAdd(g, OpKind::Add, "add", {mm->getOutput(), bias});
    Node *act = mustAdd(g, fc.op, "act", {add->getOutput()}, fc.opAttrs);
    Node *fused = mustAdd(g, OpKind::MatMul, "fc", {a, w, bias},
                          {{"kiln.activation", Attr::ofActivation(fc.activation)}});
    g.addOutput("separate", act->getOutput());
    g.addOutput("fused", fused->getOutput());
    std::vector<Tensor> out = mustRun(g, {pattern({2, 3, 5}, 6)});
    ASSERT_EQ(out.size(), 2u);
    expectClose(out[1], out[0]);
  }
}

TEST(MatMulSemantics, VectorsAndBroadcastBatches) {
  Graph g;
  Value *v = g.addConstant("v", f32({3}, {1, 2, 3}));
  Value *m = g.addConstant("m", f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  Value *mt = g.addConstant("mt", f32({2, 3}, {1, 3, 5, 2, 4, 6}));
  g.addOutput("vm", mustAdd(g, OpKind::MatMul, "vm", {v, m})->getOutput());
  g.addOutput("mv", mustAdd(g, OpKind::MatMul, "mv", {mt, v})->getOutput());
  g.addOutput("vv", mustAdd(g, OpKind::MatMul, "vv", {v, v})->getOutput());
  // [2,1,2,2] x [3,2,2]: batch (i, j) multiplies a[i] by b[j].
  Tensor a = pattern({2, 1, 2, 2}, 7), b = pattern({3, 2, 2}, 8);
  Value *av = g.addConstant("a", a), *bv = g.addConstant("b", b);
  g.addOutput("batched", mustAdd(g, OpKind::MatMul, "bm", {av, bv})->getOutput());
  std::vector<Tensor> out = mustRun(g, {});
  ASSERT_EQ(out.size(), 4u);
  // [1,2,3] . columns [1,3,5] and [2,4,6] = 22 and 28.
  EXPECT_EQ(out[0].values<float>(), llvm::ArrayRef<float>({22, 28}));
  EXPECT_EQ(out[1].values<float>(), llvm::ArrayRef<float>({22, 28}));
  EXPECT_EQ(out[2].getShape(), llvm::ArrayRef<int64_t>());
  EXPECT_EQ(out[2].values<float>(), llvm::ArrayRef<float>({14}));
  ASSERT_EQ(out[3].getShape(), llvm::ArrayRef<int64_t>({2, 3, 2, 2}));
  const float *pa = a.data<float>(), *pb = b.data<float>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
          float want = pa[i * 4 + r * 2] * pb[j * 4 + c] +
                       pa[i * 4 + r * 2 + 1] * pb[j * 4 + 2 + c];
          EXPECT_NEAR(out[3].data<float>()[((i * 3 + j) * 2 + r) * 2 + c], want,
                      1e-6);
        }
}

TEST(IntegerSemantics, DivTruncatesAndOverflowWraps) {
  Graph g;
  Value *a = g.addConstant(
      "a", ints<int64_t>(DType::I64, {4}, {7, -7, 7, -7}));
  Value *b = g.addConstant("b", ints<int64_t>(DType::I64, {4}, {2, 2, -2, -2}));
  int32_t big = std::numeric_limits<int32_t>::max();
  int32_t small = std::numeric_limits<int32_t>::min();
  Value *c = g.addConstant("c", ints<int32_t>(DType::I32, {2}, {big, small}));
  Value *one = g.addConstant("one", ints<int32_t>(DType::I32, {}, {1}));
  Value *minusOne = g.addConstant("m1", ints<int32_t>(DType::I32, {}, {-1}));
  g.addOutput("div", mustAdd(g, OpKind::Div, "div", {a, b})->getOutput());
  g.addOutput("add", mustAdd(g, OpKind::Add, "add", {c, one})->getOutput());
  g.addOutput("neg", mustAdd(g, OpKind::Div, "neg", {c, minusOne})->getOutput());
  std::vector<Tensor> out = mustRun(g, {});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].values<int64_t>(), llvm::ArrayRef<int64_t>({3, -3, -3, 3}));
  EXPECT_EQ(out[1].values<int32_t>(), llvm::ArrayRef<int32_t>({small, small + 1}));
  EXPECT_EQ(out[2].values<int32_t>(), llvm::ArrayRef<int32_t>({-big, small}));
}

TEST(QuantSemantics, Uint8IsTheInt8ValueWithTheZeroPoint128Higher) {
  // kiln.Quantize and kiln.Dequantize at a uint8 model's edges, by hand:
  // f32 -> u8 (0.5, 130) rounds half away from zero and saturates to
  // [0, 255]; u8 (0.5, 130) -> i8 (0.25, 3) doubles the steps from the zero
  // point; i8 -> u8 (0.5, 200) halves them; u8 -> f32 is (v - 130) * 0.5.
  auto quant = [](float scale, int32_t zp) {
    QuantParams q;
    q.scales = {scale};
    q.zeroPoints = {zp};
    return q;
  };
  TensorType u8In(DType::U8, {5});
  u8In.quant = quant(0.5f, 130);
  TensorType i8In(DType::I8, {5});
  i8In.quant = quant(0.1f, -10);
  Graph g;
  Value *f = g.addInput("f", TensorType(DType::F32, {5}));
  Value *u = g.addInput("u", u8In);
  Value *i = g.addInput("i", i8In);
  AttrMap toU8{{kQuantAttr.str(), Attr::ofQuant(quant(0.5f, 130))},
               {"kiln.to", Attr::ofString("u8")}};
  g.addOutput("fu", mustAdd(g, OpKind::Quantize, "fu", {f}, toU8)->getOutput());
  g.addOutput("ui", mustAdd(g, OpKind::Quantize, "ui", {u},
                            {{kQuantAttr.str(), Attr::ofQuant(quant(0.25f, 3))}})
                        ->getOutput());
  g.addOutput("iu", mustAdd(g, OpKind::Quantize, "iu", {i},
                            {{kQuantAttr.str(), Attr::ofQuant(quant(0.2f, 200))},
                             {"kiln.to", Attr::ofString("u8")}})
                        ->getOutput());
  g.addOutput("uf", mustAdd(g, OpKind::Dequantize, "uf", {u})->getOutput());
  Tensor uIn(u8In), iIn(i8In);
  const uint8_t uValues[5] = {0, 129, 130, 131, 255};
  const int8_t iValues[5] = {-128, -11, -10, -9, 127};
  std::copy(std::begin(uValues), std::end(uValues), uIn.data<uint8_t>());
  std::copy(std::begin(iValues), std::end(iValues), iIn.data<int8_t>());
  std::vector<Tensor> out =
      mustRun(g, {f32({5}, {0.25f, -0.25f, 63.0f, -66.0f, 1e30f}), uIn, iIn});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].getType(), u8In);
  EXPECT_EQ(out[0].values<uint8_t>(), llvm::ArrayRef<uint8_t>({131, 129, 255, 0, 255}));
  // (v - 130) * 0.5 / 0.25 + 3, saturated to int8.
  EXPECT_EQ(out[1].values<int8_t>(), llvm::ArrayRef<int8_t>({-128, 1, 3, 5, 127}));
  // (v + 10) * 0.1 / 0.2 + 200 (TFLite's fixed-point multiply takes a tie
  // up), saturated to uint8.
  EXPECT_EQ(out[2].values<uint8_t>(), llvm::ArrayRef<uint8_t>({141, 200, 200, 201, 255}));
  EXPECT_EQ(out[3].values<float>(), llvm::ArrayRef<float>({-65.0f, -0.5f, 0, 0.5f, 62.5f}));
}

TEST(QuantSemantics, Uint8ResultsNeedAUint8ZeroPoint) {
  Graph g;
  Value *f = g.addInput("f", TensorType(DType::F32, {2}));
  QuantParams q;
  q.scales = {0.5f};
  q.zeroPoints = {-1};
  auto n = g.addNode(OpKind::Quantize, "q", {f},
                     {{kQuantAttr.str(), Attr::ofQuant(q)}, {"kiln.to", Attr::ofString("u8")}});
  ASSERT_FALSE(n);
  EXPECT_NE(llvm::toString(n.takeError()).find("zero point in [0, 255]"), std::string::npos);
  auto bad = g.addNode(OpKind::Quantize, "q2", {f},
                       {{kQuantAttr.str(), Attr::ofQuant(q)}, {"kiln.to", Attr::ofString("f32")}});
  ASSERT_FALSE(bad);
  EXPECT_NE(llvm::toString(bad.takeError()).find("attribute 'kiln.to' must be one of \"i8\", \"u8\""), std::string::npos);
}

TEST(CastSemantics, SaturatesFloatToIntAndKeepsInt64Exact) {
  Graph g;
  float nan = std::numeric_limits<float>::quiet_NaN();
  Value *f = g.addConstant("f", f32({5}, {1.7f, -1.7f, 300.0f, -300.0f, nan}));
  int64_t exact = (int64_t(1) << 60) + 1;
  Value *i = g.addConstant("i", ints<int64_t>(DType::I64, {3}, {exact, 0, -5}));
  auto cast = [&](Value *v, int64_t to, const char *name) {
    Node *n = mustAdd(g, OpKind::Cast, name, {v}, {{"to", Attr::ofInt(to)}});
    g.addOutput(name, n->getOutput());
  };
  cast(f, 3, "toI8");
  cast(f, 2, "toU8");
  cast(i, 7, "toI64");
  cast(i, 9, "toBool");
  cast(i, 1, "toF32");
  std::vector<Tensor> out = mustRun(g, {});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].values<int8_t>(),
            llvm::ArrayRef<int8_t>({1, -1, 127, -128, 0}));
  EXPECT_EQ(out[1].values<uint8_t>(), llvm::ArrayRef<uint8_t>({1, 0, 255, 0, 0}));
  EXPECT_EQ(out[2].values<int64_t>(), llvm::ArrayRef<int64_t>({exact, 0, -5}));
  EXPECT_EQ(out[3].values<uint8_t>(), llvm::ArrayRef<uint8_t>({1, 0, 1}));
  EXPECT_EQ(out[4].values<float>(),
            llvm::ArrayRef<float>({float(exact), 0.0f, -5.0f}));
}

TEST(ShapeOpSemantics, PadConstantOnIntsAndCropping) {
  Graph g;
  Value *x = g.addConstant("x", ints<int32_t>(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  // One row before, one column cropped at the start, one added at the end.
  Node *pad = mustAdd(g, OpKind::Pad, "pad", {x},
                      {{"pads", Attr::ofInts({1, -1, 0, 1})},
                       {"value", Attr::ofFloat(9.0f)}});
  g.addOutput("p", pad->getOutput());
  std::vector<Tensor> out = mustRun(g, {});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].getShape(), llvm::ArrayRef<int64_t>({3, 3}));
  EXPECT_EQ(out[0].values<int32_t>(),
            llvm::ArrayRef<int32_t>({9, 9, 9, 2, 3, 9, 5, 6, 9}));
}

TEST(ShapeOpSemantics, GatherOnShapeAndIndexErrors) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {2, 3, 5}));
  Node *shape = mustAdd(g, OpKind::Shape, "shape", {x});
  Value *idx = g.addConstant("idx", ints<int64_t>(DType::I64, {2}, {-1, 0}));
  Node *gather = mustAdd(g, OpKind::Gather, "gather", {shape->getOutput(), idx});
  g.addOutput("dims", gather->getOutput());
  std::vector<Tensor> out = mustRun(g, {Tensor(TensorType(DType::F32, {2, 3, 5}))});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<int64_t>(), llvm::ArrayRef<int64_t>({5, 2}));

  Graph bad;
  Value *data = bad.addConstant("d", f32({3}, {1, 2, 3}));
  Value *far = bad.addConstant("i", ints<int32_t>(DType::I32, {1}, {3}));
  bad.addOutput("o", mustAdd(bad, OpKind::Gather, "g", {data, far})->getOutput());
  auto err = runGraph(bad, {});
  ASSERT_FALSE(bool(err));
  EXPECT_EQ(llvm::toString(err.takeError()),
            "node 'g' (Gather): index 3 is out of range for dimension 0 of "
            "size 3");
}

TEST(ShapeOpSemantics, DropoutPassesThroughWithAFullMask) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {3}));
  Value *ratio = g.addConstant("r", f32({}, {0.5f}));
  Node *d = mustAdd(g, OpKind::Dropout, "drop", {x, ratio});
  g.addOutput("y", d->getOutput(0));
  g.addOutput("mask", d->getOutput(1));
  std::vector<Tensor> out = mustRun(g, {f32({3}, {1, -2, 3})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values<float>(), llvm::ArrayRef<float>({1, -2, 3}));
  EXPECT_EQ(out[1].values<uint8_t>(), llvm::ArrayRef<uint8_t>({1, 1, 1}));
}

TEST(PoolSemantics, CeilModeDropsTheWindowStartingInThePad) {
  Graph g;
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 1, 4}));
  Node *p = mustAdd(g, OpKind::MaxPool, "pool", {x},
                    {{"kernel_shape", Attr::ofInts({2})},
                     {"strides", Attr::ofInts({2})},
                     {"pads", Attr::ofInts({0, 1})},
                     {"ceil_mode", Attr::ofInt(1)}});
  g.addOutput("y", p->getOutput());
  std::vector<Tensor> out = mustRun(g, {f32({1, 1, 4}, {1, 5, -2, -3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values<float>(), llvm::ArrayRef<float>({5, -2}));
}

} // namespace
} // namespace kiln
