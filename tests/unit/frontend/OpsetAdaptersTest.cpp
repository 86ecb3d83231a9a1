//===- OpsetAdaptersTest.cpp - Older opsets import with newest semantics --===//
//
// Each adaptation is checked two ways: the old and new ONNX forms of an op
// give the same IR node, and running the imported graph with the reference
// interpreter gives the result computed here by hand from the ONNX spec.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Verifier.h"
#include "compiler/interpreter/Interpreter.h"
#include "tests/unit/frontend/ImportTestUtil.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln {
namespace {

using test::ModelBuilder;

using test::importAndRun;
using test::importError;
using test::importOk;
using test::runOnInput;
using test::singleNode;

const std::vector<float> kRamp = {-3, -2, -1, 0, 1, 2, 3, 4};

//===----------------------------------------------------------------------===//
// Clip: attributes before opset 11, optional constant inputs since.
//===----------------------------------------------------------------------===//

TEST(OpsetAdapters, ClipAttributesAndInputsGiveTheSameNode) {
  ModelBuilder old(10);
  old.input("x", {8}).output("y", {8});
  onnx::NodeProto &clip = old.node("Clip", {"x"}, {"y"}, "clip");
  test::setFloat(clip, "min", -1.5f);
  test::setFloat(clip, "max", 2.0f);

  ModelBuilder current(13);
  current.input("x", {8}).output("y", {8});
  current.initializer("lo", {}, {-1.5f}).initializer("hi", {}, {2.0f});
  current.node("Clip", {"x", "lo", "hi"}, {"y"}, "clip");

  std::vector<float> expected;
  for (float v : kRamp)
    expected.push_back(std::min(std::max(v, -1.5f), 2.0f));
  for (ModelBuilder *b : {&old, &current}) {
    auto g = importOk(*b);
    ASSERT_TRUE(g);
    const Node *n = singleNode(*g, OpKind::Clip);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->getNumInputs(), 1u);
    EXPECT_EQ(n->getFloat("min"), -1.5f);
    EXPECT_EQ(n->getFloat("max"), 2.0f);
    EXPECT_TRUE(g->getConstants().empty()) << "bounds left as constants";
    EXPECT_EQ(runOnInput(*g, {8}, kRamp), expected);
  }
}

TEST(OpsetAdapters, ClipWithOnlyAnUpperBound) {
  ModelBuilder b(13);
  b.input("x", {8}).output("y", {8});
  b.initializer("hi", {}, {0.5f});
  b.node("Clip", {"x", "", "hi"}, {"y"}, "clip");
  auto g = importOk(b);
  ASSERT_TRUE(g);
  std::vector<float> expected;
  for (float v : kRamp)
    expected.push_back(std::min(v, 0.5f));
  EXPECT_EQ(runOnInput(*g, {8}, kRamp), expected);
}

/// Bounds that are graph inputs are run-time operands: ONNX's formula
/// min(max(x, lo), hi), where hi wins when lo > hi.
TEST(OpsetAdapters, ClipWithRunTimeBounds) {
  ModelBuilder b(13);
  b.input("x", {8}).input("lo", {}).input("hi", {}).output("y", {8});
  b.node("Clip", {"x", "lo", "hi"}, {"y"}, "clip");
  for (auto [lo, hi] : {std::pair(-1.5f, 2.5f), std::pair(1.0f, -1.0f)}) {
    auto out = importAndRun(
        b, {Tensor::fromValues<float>(DType::F32, {8}, kRamp),
            Tensor::fromValues<float>(DType::F32, {}, {lo}),
            Tensor::fromValues<float>(DType::F32, {}, {hi})});
    ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
    std::vector<float> expected;
    for (float v : kRamp)
      expected.push_back(std::min(std::max(v, lo), hi));
    llvm::ArrayRef<float> got = (*out)[0].values<float>();
    EXPECT_EQ(std::vector<float>(got.begin(), got.end()), expected);
  }
}

TEST(OpsetAdapters, ClipErrors) {
  ModelBuilder wideBound(13);
  wideBound.input("x", {8}).input("lo", {2}).output("y");
  wideBound.node("Clip", {"x", "lo"}, {"y"}, "clip");
  EXPECT_EQ(importError(wideBound),
            "node 'clip' (Clip): input 1 (min) must hold one value, got f32[2]");

  ModelBuilder oldAttr(13);
  oldAttr.input("x", {8}).output("y");
  test::setFloat(oldAttr.node("Clip", {"x"}, {"y"}, "clip"), "min", 0.0f);
  EXPECT_EQ(importError(oldAttr),
            "node 'clip' (Clip): attribute 'min' is an input since opset 11");
}

/// Trilu's k as a graph input: element (i, j) is kept where j - i >= k
/// (upper) or j - i <= k (lower), over every matrix of a batch.
TEST(OpsetAdapters, TriluWithRunTimeK) {
  for (int64_t upper : {0, 1}) {
    ModelBuilder b(14);
    b.input("x", {2, 3, 4}).input("k", {}, onnx::TensorProto::INT64);
    b.output("y", {2, 3, 4});
    test::setInt(b.node("Trilu", {"x", "k"}, {"y"}, "trilu"), "upper", upper);
    std::vector<float> x(24);
    for (size_t e = 0; e < x.size(); ++e)
      x[e] = float(e + 1);
    for (int64_t k : {-1, 0, 2}) {
      SCOPED_TRACE(llvm::formatv("upper {0}, k {1}", upper, k).str());
      auto out = importAndRun(b, {Tensor::fromValues<float>(DType::F32, {2, 3, 4}, x),
                                  Tensor::fromValues<int64_t>(DType::I64, {}, {k})});
      ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
      llvm::ArrayRef<float> got = (*out)[0].values<float>();
      for (int64_t e = 0; e < 24; ++e) {
        int64_t i = e / 4 % 3, j = e % 4;
        bool keep = upper ? j - i >= k : j - i <= k;
        EXPECT_EQ(got[e], keep ? x[e] : 0.0f) << "element " << e;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Pad: attributes in Pad-2, inputs since Pad-11.
//===----------------------------------------------------------------------===//

TEST(OpsetAdapters, PadAttributesAndInputsGiveTheSameNode) {
  const std::vector<int64_t> pads = {1, 0, 0, 2};
  ModelBuilder old(10);
  old.input("x", {2, 2}).output("y", {3, 4});
  onnx::NodeProto &pad = old.node("Pad", {"x"}, {"y"}, "pad");
  test::setInts(pad, "pads", pads);
  test::setFloat(pad, "value", 7.0f);

  ModelBuilder current(13);
  current.input("x", {2, 2}).output("y", {3, 4});
  current.int64Initializer("pads", {4}, pads).initializer("v", {}, {7.0f});
  test::setString(current.node("Pad", {"x", "pads", "v"}, {"y"}, "pad"), "mode",
                  "constant");

  // Row 0 is padding; each data row gets two trailing columns of 7.
  const std::vector<float> expected = {7, 7, 7, 7, //
                                       1, 2, 7, 7, //
                                       3, 4, 7, 7};
  for (ModelBuilder *b : {&old, &current}) {
    auto g = importOk(*b);
    ASSERT_TRUE(g);
    const Node *n = singleNode(*g, OpKind::Pad);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->getNumInputs(), 1u);
    EXPECT_EQ(n->getInts("pads"), llvm::ArrayRef<int64_t>(pads));
    EXPECT_EQ(n->getFloat("value"), 7.0f);
    EXPECT_EQ(n->getString("mode"), "constant");
    EXPECT_EQ(runOnInput(*g, {2, 2}, {1, 2, 3, 4}), expected);
  }
}

TEST(OpsetAdapters, PadNeedsIntegerConstantPads) {
  ModelBuilder floatPads(13);
  floatPads.input("x", {2, 2}).output("y");
  floatPads.initializer("pads", {4}, {1, 0, 0, 2});
  floatPads.node("Pad", {"x", "pads"}, {"y"}, "pad");
  EXPECT_EQ(importError(floatPads),
            "node 'pad' (Pad): input 1 (pads) must be a 1-D int64 or int32 "
            "tensor, got f32[4]");

  ModelBuilder missing(13);
  missing.input("x", {2, 2}).output("y");
  missing.node("Pad", {"x"}, {"y"}, "pad");
  EXPECT_EQ(importError(missing),
            "node 'pad' (Pad): input 1 (pads) is missing");
}

//===----------------------------------------------------------------------===//
// Reshape, Squeeze, Unsqueeze: constant inputs become attributes, after the
// importer folded whatever computed them.
//===----------------------------------------------------------------------===//

TEST(OpsetAdapters, ShapeGatherConcatChainFoldsIntoReshape) {
  // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): the
  // "keep the batch, flatten the rest" chain exporters emit.
  ModelBuilder b(13);
  b.input("x", {2, 3, 4}).output("y", {2, 12});
  b.int64Initializer("zero", {}, {0});
  b.int64Initializer("axes0", {1}, {0});
  b.int64Initializer("minus1", {1}, {-1});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "zero"}, {"batch"});
  b.node("Unsqueeze", {"batch", "axes0"}, {"batch1"});
  test::setInt(b.node("Concat", {"batch1", "minus1"}, {"shape"}), "axis", 0);
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  auto g = importOk(b);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::Reshape);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->getNumInputs(), 1u);
  EXPECT_EQ(n->getInts("shape"), llvm::ArrayRef<int64_t>({2, -1}));
  EXPECT_EQ(n->getOutput()->getType(), TensorType(DType::F32, {2, 12}));
  EXPECT_TRUE(g->getConstants().empty()) << "folded constants left behind";
}

TEST(OpsetAdapters, ShapeWithStartAndEndFolds) {
  ModelBuilder b(15);
  b.input("x", {2, 3, 4, 5}).output("s", {2}, onnx::TensorProto::INT64);
  onnx::NodeProto &shape = b.node("Shape", {"x"}, {"s"});
  test::setInt(shape, "start", 1);
  test::setInt(shape, "end", -1);
  auto g = importOk(b);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->getNumNodes(), 0u);
  Value *s = g->getOutputs()[0].value;
  ASSERT_TRUE(s->isConstant());
  EXPECT_EQ(s->getConstant().values<int64_t>(),
            llvm::ArrayRef<int64_t>({3, 4}));
}

TEST(OpsetAdapters, ReshapeShapeComputedAtRunTimeIsAnError) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).input("shape", {2}, onnx::TensorProto::INT64);
  b.output("y");
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  EXPECT_EQ(importError(b),
            "node 'reshape' (Reshape): input 1 (shape) must be a constant "
            "(run-time shapes are not supported); 'shape' is a graph input: "
            "give it a value with --const-input NAME=FILE.npy");

  ModelBuilder computed(13);
  computed.input("x", {2, 3}).input("shape", {2}, onnx::TensorProto::INT64);
  computed.output("y");
  computed.node("Abs", {"shape"}, {"abs_shape"}, "abs");
  computed.node("Reshape", {"x", "abs_shape"}, {"y"}, "reshape");
  EXPECT_EQ(importError(computed),
            "node 'reshape' (Reshape): input 1 (shape) must be a constant "
            "(run-time shapes are not supported); 'abs_shape' is computed at "
            "run time");
}

TEST(OpsetAdapters, SqueezeAndUnsqueezeAxesAttributeAndInput) {
  for (int64_t opset : {11, 13}) {
    ModelBuilder b(opset);
    b.input("x", {3, 1, 4}).output("y", {3, 4, 1});
    if (opset < 13) {
      test::setInts(b.node("Squeeze", {"x"}, {"s"}), "axes", {1});
      test::setInts(b.node("Unsqueeze", {"s"}, {"y"}), "axes", {-1});
    } else {
      b.int64Initializer("one", {1}, {1}).int64Initializer("last", {1}, {-1});
      b.node("Squeeze", {"x", "one"}, {"s"});
      b.node("Unsqueeze", {"s", "last"}, {"y"});
    }
    auto g = importOk(b);
    ASSERT_TRUE(g) << "opset " << opset;
    std::vector<Node *> nodes = g->getNodes();
    ASSERT_EQ(nodes.size(), 2u);
    EXPECT_EQ(nodes[0]->getInts("axes"), llvm::ArrayRef<int64_t>({1}));
    EXPECT_EQ(nodes[1]->getInts("axes"), llvm::ArrayRef<int64_t>({-1}));
    EXPECT_EQ(nodes[0]->getNumInputs(), 1u);
    EXPECT_EQ(nodes[1]->getNumInputs(), 1u);
  }
}

TEST(OpsetAdapters, SqueezeWithoutAxesRemovesAllOnes) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 1}).output("y", {3});
  b.node("Squeeze", {"x"}, {"y"});
  auto g = importOk(b);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::Squeeze);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->hasAttr("axes"));
}

//===----------------------------------------------------------------------===//
// Constant folding while importing.
//===----------------------------------------------------------------------===//

TEST(OpsetAdapters, NodesOfConstantsFold) {
  ModelBuilder b(13);
  b.input("x", {2}).output("y", {2});
  b.initializer("a", {2}, {1, 2}).initializer("b", {2}, {10, 20});
  b.node("Add", {"a", "b"}, {"sum"});
  b.node("Mul", {"x", "sum"}, {"y"});
  auto g = importOk(b);
  ASSERT_TRUE(g);
  const Node *mul = singleNode(*g, OpKind::Mul);
  ASSERT_TRUE(mul);
  Value *sum = mul->getInput(1);
  ASSERT_TRUE(sum->isConstant());
  EXPECT_EQ(sum->getName(), "sum");
  EXPECT_EQ(sum->getConstant().values<float>(),
            llvm::ArrayRef<float>({11, 22}));
  // The folded Add's inputs are gone; only the constant Mul reads remains.
  EXPECT_EQ(g->getConstants().size(), 1u);
}

//===----------------------------------------------------------------------===//
// Dropout: identity in inference; training_mode must be a constant false.
//===----------------------------------------------------------------------===//

TEST(OpsetAdapters, DropoutForms) {
  ModelBuilder old(10);
  old.input("x", {4}).output("y", {4});
  test::setFloat(old.node("Dropout", {"x"}, {"y"}, "drop"), "ratio", 0.3f);

  ModelBuilder current(13);
  current.input("x", {4}).output("y", {4}).output("mask", {4},
                                                  onnx::TensorProto::BOOL);
  current.initializer("ratio", {}, {0.3f});
  onnx::TensorProto no;
  no.set_data_type(onnx::TensorProto::BOOL);
  no.add_int32_data(0);
  no.set_name("training");
  *current.proto().mutable_graph()->add_initializer() = no;
  current.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"}, "drop");

  for (ModelBuilder *b : {&old, &current}) {
    auto g = importOk(*b);
    ASSERT_TRUE(g);
    const Node *n = singleNode(*g, OpKind::Dropout);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->getNumInputs(), 1u);
    EXPECT_EQ(runOnInput(*g, {4}, {1, -2, 3, -4}), std::vector<float>({1, -2, 3, -4}));
  }

  ModelBuilder training(13);
  training.input("x", {4}).output("y");
  onnx::TensorProto yes = no;
  yes.set_int32_data(0, 1);
  *training.proto().mutable_graph()->add_initializer() = yes;
  training.node("Dropout", {"x", "", "training"}, {"y"}, "drop");
  EXPECT_EQ(importError(training),
            "node 'drop' (Dropout): training mode is not supported: "
            "training_mode must be a constant false, or the ratio a constant "
            "0 (a random mask cannot be reproduced); kiln compiles for "
            "inference");

  // Training with a ratio of 0 keeps everything: it is inference.
  ModelBuilder zeroRatio(13);
  zeroRatio.input("x", {4}).output("y");
  zeroRatio.initializer("ratio", {}, {0});
  *zeroRatio.proto().mutable_graph()->add_initializer() = yes;
  zeroRatio.node("Dropout", {"x", "ratio", "training"}, {"y"}, "drop");
  auto kept = importOk(zeroRatio);
  ASSERT_TRUE(kept);
  EXPECT_EQ(runOnInput(*kept, {4}, {1, -2, 3, -4}),
            std::vector<float>({1, -2, 3, -4}));

  ModelBuilder runtimeMode(13);
  runtimeMode.input("x", {4}).input("t", {}, onnx::TensorProto::BOOL);
  runtimeMode.output("y");
  runtimeMode.node("Dropout", {"x", "", "t"}, {"y"}, "drop");
  EXPECT_EQ(importError(runtimeMode),
            "node 'drop' (Dropout): input 2 (training_mode) must be a "
            "constant (run-time shapes are not supported); 't' is a graph "
            "input: give it a value with --const-input NAME=FILE.npy");
}

//===----------------------------------------------------------------------===//
// Softmax before opset 13: coerce to 2-D at `axis`, normalize whole rows.
//===----------------------------------------------------------------------===//

/// Softmax over the rows of x viewed as [rows, size / rows], straight from
/// the opset-1 definition.
std::vector<float> rowSoftmax(const std::vector<float> &x, size_t rows) {
  size_t cols = x.size() / rows;
  std::vector<float> y(x.size());
  for (size_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (size_t c = 0; c < cols; ++c)
      mx = std::max<double>(mx, x[r * cols + c]);
    for (size_t c = 0; c < cols; ++c)
      sum += std::exp(x[r * cols + c] - mx);
    for (size_t c = 0; c < cols; ++c)
      y[r * cols + c] = std::exp(x[r * cols + c] - mx) / sum;
  }
  return y;
}

std::vector<float> softmaxInput() {
  std::vector<float> x;
  for (int i = 0; i < 24; ++i)
    x.push_back(std::sin(i * 0.7f) * 3.0f);
  return x;
}

TEST(OpsetAdapters, Pre13SoftmaxNormalizesTheCoercedMatrix) {
  // x: [2,3,4]. axis 1 -> rows of 12; axis 0 -> one row of 24; no axis
  // attribute means 1.
  struct Case {
    std::optional<int64_t> axis;
    size_t rows;
  };
  for (Case c : {Case{1, 2}, Case{0, 1}, Case{std::nullopt, 2}, Case{-2, 2}}) {
    ModelBuilder b(11);
    b.input("x", {2, 3, 4}).output("y", {2, 3, 4});
    onnx::NodeProto &n = b.node("Softmax", {"x"}, {"y"}, "sm");
    if (c.axis)
      test::setInt(n, "axis", *c.axis);
    auto g = importOk(b);
    ASSERT_TRUE(g);
    std::vector<Node *> nodes = g->getNodes();
    ASSERT_EQ(nodes.size(), 3u);
    EXPECT_TRUE(nodes[0]->is(OpKind::Flatten));
    EXPECT_TRUE(nodes[1]->is(OpKind::Softmax));
    EXPECT_EQ(nodes[1]->getName(), "sm");
    EXPECT_TRUE(nodes[2]->is(OpKind::Reshape));
    EXPECT_EQ(g->getOutputs()[0].value->getName(), "y");

    std::vector<float> got = runOnInput(*g, {2, 3, 4}, softmaxInput());
    std::vector<float> want = rowSoftmax(softmaxInput(), c.rows);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-6f) << "element " << i;
  }
}

TEST(OpsetAdapters, Pre13SoftmaxOnTheLastAxisStaysOneNode) {
  ModelBuilder b(11);
  b.input("x", {2, 3, 4}).output("y", {2, 3, 4});
  test::setInt(b.node("Softmax", {"x"}, {"y"}, "sm"), "axis", 2);
  auto g = importOk(b);
  ASSERT_TRUE(g);
  ASSERT_TRUE(singleNode(*g, OpKind::Softmax));
  std::vector<float> got = runOnInput(*g, {2, 3, 4}, softmaxInput());
  std::vector<float> want = rowSoftmax(softmaxInput(), 6);
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-6f) << "element " << i;
}

TEST(OpsetAdapters, Opset13SoftmaxIsPerAxis) {
  // Opset 13 normalizes along axis 0 alone: columns of the [2,12] view.
  ModelBuilder b(13);
  b.input("x", {2, 3, 4}).output("y", {2, 3, 4});
  test::setInt(b.node("Softmax", {"x"}, {"y"}, "sm"), "axis", 0);
  auto g = importOk(b);
  ASSERT_TRUE(g);
  ASSERT_TRUE(singleNode(*g, OpKind::Softmax));
  std::vector<float> x = softmaxInput();
  std::vector<float> got = runOnInput(*g, {2, 3, 4}, x);
  for (size_t i = 0; i < 12; ++i) {
    float e0 = std::exp(x[i]), e1 = std::exp(x[12 + i]);
    EXPECT_NEAR(got[i], e0 / (e0 + e1), 1e-6f);
    EXPECT_NEAR(got[12 + i], e1 / (e0 + e1), 1e-6f);
  }
}

TEST(OpsetAdapters, Pre13SoftmaxAxisOutOfRange) {
  ModelBuilder b(11);
  b.input("x", {2, 3}).output("y");
  test::setInt(b.node("Softmax", {"x"}, {"y"}, "sm"), "axis", 2);
  EXPECT_EQ(importError(b),
            "node 'sm' (Softmax): axis 2 is out of range for rank 2");
}

//===----------------------------------------------------------------------===//
// Gemm: Gemm-6's broadcast attribute is ignored; C is optional since 11.
//===----------------------------------------------------------------------===//

TEST(OpsetAdapters, GemmBroadcastAttributeAndOptionalC) {
  // y = x * w + c with x: [1,2], w: [2,3], c: [3] broadcast over rows.
  ModelBuilder old(7);
  old.input("x", {1, 2}).output("y", {1, 3});
  old.initializer("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  old.initializer("c", {3}, {10, 20, 30});
  test::setInt(old.node("Gemm", {"x", "w", "c"}, {"y"}, "gemm"), "broadcast",
               1);
  auto g = importOk(old);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::Gemm);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->hasAttr("broadcast"));
  EXPECT_EQ(runOnInput(*g, {1, 2}, {1, -1}), std::vector<float>({7, 17, 27}));

  ModelBuilder noC(11);
  noC.input("x", {1, 2}).output("y", {1, 3});
  noC.initializer("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  noC.node("Gemm", {"x", "w"}, {"y"}, "gemm");
  auto g2 = importOk(noC);
  ASSERT_TRUE(g2);
  EXPECT_EQ(runOnInput(*g2, {1, 2}, {1, -1}), std::vector<float>({-3, -3, -3}));
}

//===----------------------------------------------------------------------===//
// BatchNormalization: spatial before opset 9, training_mode since 14.
//===----------------------------------------------------------------------===//

ModelBuilder batchNormModel(int64_t opset) {
  ModelBuilder b(opset);
  b.input("x", {1, 2, 1, 2}).output("y", {1, 2, 1, 2});
  b.initializer("scale", {2}, {1, 2}).initializer("bias", {2}, {0, 1});
  b.initializer("mean", {2}, {0, 0}).initializer("var", {2}, {1, 1});
  b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"},
         "bn");
  return b;
}

TEST(OpsetAdapters, BatchNormSpatialAndTrainingMode) {
  ModelBuilder spatial = batchNormModel(7);
  test::setInt(*spatial.proto().mutable_graph()->mutable_node(0), "spatial", 1);
  auto g = importOk(spatial);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::BatchNormalization);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->hasAttr("spatial"));
  // y = scale * x / sqrt(1 + eps) + bias, per channel.
  std::vector<float> got = runOnInput(*g, {1, 2, 1, 2}, {1, 2, 3, 4});
  float k = 1.0f / std::sqrt(1.0f + 1e-5f);
  std::vector<float> want = {k, 2 * k, 2 * 3 * k + 1, 2 * 4 * k + 1};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5f);

  ModelBuilder perElement = batchNormModel(7);
  test::setInt(*perElement.proto().mutable_graph()->mutable_node(0), "spatial",
               0);
  EXPECT_EQ(importError(perElement),
            "node 'bn' (BatchNormalization): spatial=0 (per-element "
            "statistics) is not supported");

  ModelBuilder training = batchNormModel(15);
  test::setInt(*training.proto().mutable_graph()->mutable_node(0),
               "training_mode", 1);
  // Training mode normalizes with the batch's statistics: channel 0 holds
  // {1, 2} (mean 1.5, variance 0.25), channel 1 {3, 4} (mean 3.5).
  auto trained = importOk(training);
  ASSERT_TRUE(trained);
  std::vector<float> norm = runOnInput(*trained, {1, 2, 1, 2}, {1, 2, 3, 4});
  float s = 0.5f / std::sqrt(0.25f + 1e-5f);
  std::vector<float> wantTrained = {-s, s, 2 * -s + 1, 2 * s + 1};
  ASSERT_EQ(norm.size(), wantTrained.size());
  for (size_t i = 0; i < wantTrained.size(); ++i)
    EXPECT_NEAR(norm[i], wantTrained[i], 1e-5f);

  ModelBuilder spatialAt9 = batchNormModel(9);
  test::setInt(*spatialAt9.proto().mutable_graph()->mutable_node(0), "spatial",
               1);
  EXPECT_EQ(importError(spatialAt9),
            "node 'bn' (BatchNormalization): unsupported attribute 'spatial'");
}

//===----------------------------------------------------------------------===//
// Attributes that change nothing in inference, dropped where ONNX had them.
//===----------------------------------------------------------------------===//

TEST(OpsetAdapters, IgnoredAttributesAreDroppedOnlyWhereOnnxHadThem) {
  ModelBuilder bn = batchNormModel(9);
  onnx::NodeProto &node = *bn.proto().mutable_graph()->mutable_node(0);
  test::setInt(node, "is_test", 1);
  test::setInts(node, "consumed_inputs", {0, 0, 0, 1, 1});
  auto g = importOk(bn);
  ASSERT_TRUE(g);
  const Node *n = singleNode(*g, OpKind::BatchNormalization);
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->hasAttr("is_test"));
  EXPECT_FALSE(n->hasAttr("consumed_inputs"));

  // Relu-1 had consumed_inputs; Relu-6 and later have no attribute.
  for (int64_t opset : {1, 6, 7}) {
    ModelBuilder relu(opset);
    relu.input("x", {2}).output("y", {2});
    test::setInts(relu.node("Relu", {"x"}, {"y"}, "relu"), "consumed_inputs",
                  {0});
    if (opset < 7) {
      auto r = importOk(relu);
      ASSERT_TRUE(r);
      EXPECT_EQ(runOnInput(*r, {2}, {-1, 2}), std::vector<float>({0, 2}));
    } else {
      EXPECT_EQ(importError(relu),
                "node 'relu' (Relu): unsupported attribute 'consumed_inputs'");
    }
  }
}

} // namespace
} // namespace kiln
