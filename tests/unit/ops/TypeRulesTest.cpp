//===- TypeRulesTest.cpp - Output types and type-rule errors ---------------===//
//
// Good inputs give the output type the ONNX operator documents (worked out
// by hand here); bad ones give an error that names the node and the problem.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln {
namespace {

class TypeRules : public ::testing::Test {
protected:
  Value *in(llvm::ArrayRef<int64_t> shape, DType t = DType::F32) {
    return g.addInput("x", TensorType(t, shape));
  }

  /// The output types of a new node, or a failure with the error.
  std::vector<TensorType> types(OpKind kind, llvm::ArrayRef<Value *> inputs,
                                AttrMap attrs = {}) {
    auto n = g.addNode(kind, "ok", inputs, std::move(attrs));
    if (!n) {
      ADD_FAILURE() << llvm::toString(n.takeError());
      return {};
    }
    std::vector<TensorType> out;
    for (Value *v : (*n)->getOutputs())
      out.push_back(v->getType());
    return out;
  }
  TensorType type(OpKind kind, llvm::ArrayRef<Value *> inputs,
                  AttrMap attrs = {}) {
    std::vector<TensorType> t = types(kind, inputs, std::move(attrs));
    return t.empty() ? TensorType() : t[0];
  }

  /// Expects node creation to fail with "node 'bad' (OP): ...part...".
  void expectError(OpKind kind, llvm::ArrayRef<Value *> inputs, AttrMap attrs,
                   llvm::StringRef part) {
    auto n = g.addNode(kind, "bad", inputs, std::move(attrs));
    ASSERT_FALSE(bool(n)) << "accepted a bad " << getOpDef(kind).name;
    std::string msg = llvm::toString(n.takeError());
    std::string prefix =
        std::string("node 'bad' (") + getOpDef(kind).name + "): ";
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << msg;
    EXPECT_NE(msg.find(part.str()), std::string::npos) << msg;
  }

  static TensorType f32(llvm::ArrayRef<int64_t> shape) {
    return TensorType(DType::F32, shape);
  }

  Graph g;
};

TEST_F(TypeRules, Conv) {
  EXPECT_EQ(type(OpKind::Conv, {in({1, 3, 224, 224}), in({64, 3, 7, 7}), in({64})},
                 {{"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({3, 3, 3, 3})}}),
            f32({1, 64, 112, 112}));
  // Depthwise: 32 groups of one channel.
  EXPECT_EQ(type(OpKind::Conv, {in({1, 32, 10, 10}), in({32, 1, 3, 3})},
                 {{"group", Attr::ofInt(32)}}),
            f32({1, 32, 8, 8}));
  EXPECT_EQ(type(OpKind::Conv, {in({1, 1, 5, 5}), in({1, 1, 3, 3})},
                 {{"auto_pad", Attr::ofString("SAME_UPPER")},
                  {"strides", Attr::ofInts({2, 2})}}),
            f32({1, 1, 3, 3}));
  // 1-D, two groups, dilation 2: kernel extent 5, 10 - 5 + 1 = 6.
  EXPECT_EQ(type(OpKind::Conv, {in({2, 4, 10}), in({6, 2, 3})},
                 {{"group", Attr::ofInt(2)}, {"dilations", Attr::ofInts({2})}}),
            f32({2, 6, 6}));
  EXPECT_EQ(type(OpKind::Conv, {in({1, 2, 4, 4, 4}), in({3, 2, 2, 2, 2})},
                 {{"kernel_shape", Attr::ofInts({2, 2, 2})},
                  {"kiln.activation",
                   Attr::ofActivation(
                       *Activation::make(ActivationKind::LeakyRelu, {0.1f}))}}),
            f32({1, 3, 3, 3, 3}));

  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 4, 3, 3})}, {},
              "X has 3 channels but W f32[8,4,3,3] with group 1 expects 4");
  expectError(OpKind::Conv, {in({1, 4, 8, 8}), in({6, 1, 3, 3})},
              {{"group", Attr::ofInt(4)}}, "group 4 must be positive and divide");
  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 3, 3, 3}), in({10})}, {},
              "bias must be [8], got f32[10]");
  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 3, 3, 3})},
              {{"kernel_shape", Attr::ofInts({5, 5})}},
              "kernel_shape [5,5] does not match W");
  expectError(OpKind::Conv, {in({1, 1, 2, 2}), in({1, 1, 3, 3})}, {}, "exceeds");
  expectError(OpKind::Conv, {in({1, 3, 8, 8}, DType::I32), in({8, 3, 3, 3})},
              {}, "input 0: dtype i32 is not supported (Conv takes f32)");
  expectError(OpKind::Conv, {in({3, 8}), in({8, 3})}, {}, "N x C");
  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 3, 3})}, {},
              "must have the rank of X");
  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 3, 3, 3})},
              {{"kiln.activation", Attr::ofString("Relu")}},
              "'kiln.activation' must be activation");
  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 3, 3, 3})},
              {{"pads", Attr::ofInts({1, 1})}}, "pads must have");
  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 3, 3, 3})},
              {{"auto_pad", Attr::ofString("FOO")}},
              "attribute 'auto_pad' must be one of \"NOTSET\", \"VALID\", \"SAME_UPPER\", "
              "\"SAME_LOWER\", got \"FOO\"");
  // Graph-level attribute checks apply to every op.
  expectError(OpKind::Conv, {in({1, 3, 8, 8}), in({8, 3, 3, 3})},
              {{"group", Attr::ofFloat(1.0f)}}, "'group' must be int");
}

TEST_F(TypeRules, Gemm) {
  EXPECT_EQ(type(OpKind::Gemm, {in({2, 3}), in({3, 4}), in({4})}), f32({2, 4}));
  EXPECT_EQ(type(OpKind::Gemm, {in({3, 2}), in({4, 3})},
                 {{"transA", Attr::ofInt(1)}, {"transB", Attr::ofInt(1)}}),
            f32({2, 4}));
  EXPECT_EQ(type(OpKind::Gemm, {in({2, 3}), in({3, 4}), in({})}), f32({2, 4}));
  EXPECT_EQ(type(OpKind::Gemm, {in({2, 3}), in({3, 4}), in({2, 1})}),
            f32({2, 4}));
  expectError(OpKind::Gemm, {in({2, 3}), in({4, 5})}, {},
              "inner dimensions differ: A f32[2,3] gives K = 3, B f32[4,5] "
              "gives K = 4");
  expectError(OpKind::Gemm, {in({2, 3}), in({3, 4}), in({3})}, {},
              "C f32[3] does not broadcast to [2,4]");
  expectError(OpKind::Gemm, {in({1, 2, 3}), in({3, 4})}, {},
              "input 0 must have rank 2");
}

TEST_F(TypeRules, MatMul) {
  EXPECT_EQ(type(OpKind::MatMul, {in({2, 3, 4}), in({4, 5})}), f32({2, 3, 5}));
  EXPECT_EQ(type(OpKind::MatMul, {in({3}), in({3, 4})}), f32({4}));
  EXPECT_EQ(type(OpKind::MatMul, {in({2, 3}), in({3})}), f32({2}));
  EXPECT_EQ(type(OpKind::MatMul, {in({3}), in({3})}), f32({}));
  EXPECT_EQ(type(OpKind::MatMul, {in({2, 1, 3, 4}), in({5, 4, 6})}),
            f32({2, 5, 3, 6}));
  EXPECT_EQ(type(OpKind::MatMul, {in({8, 512}), in({512, 10}), in({10})},
                 {{"kiln.activation",
                   Attr::ofActivation(*Activation::make(ActivationKind::Relu))}}),
            f32({8, 10}));
  expectError(OpKind::MatMul, {in({2, 3}), in({4, 5})}, {},
              "operands f32[2,3] and f32[4,5] are incompatible");
  expectError(OpKind::MatMul, {in({2, 3, 4}), in({3, 4, 5})}, {},
              "incompatible");
  expectError(OpKind::MatMul, {in({8, 4}), in({4, 10}), in({8})}, {},
              "bias must be [10], got f32[8]");
  expectError(OpKind::MatMul, {in({}), in({3})}, {}, "must not be scalars");
  expectError(OpKind::MatMul, {in({2, 3}), in({3, 4}, DType::I64)}, {},
              "input 1: dtype i64 is not supported (MatMul takes f32)");
}

TEST_F(TypeRules, ElementwiseBinary) {
  EXPECT_EQ(type(OpKind::Add, {in({2, 3, 4, 5}), in({5})}), f32({2, 3, 4, 5}));
  EXPECT_EQ(type(OpKind::Mul, {in({2, 1, 4}), in({3, 1})}), f32({2, 3, 4}));
  EXPECT_EQ(type(OpKind::Div, {in({2}, DType::I64), in({}, DType::I64)}),
            TensorType(DType::I64, {2}));
  EXPECT_EQ(type(OpKind::Sub, {in({4}, DType::I32), in({4}, DType::I32)}),
            TensorType(DType::I32, {4}));
  expectError(OpKind::Add, {in({2, 3}), in({4})}, {},
              "shapes f32[2,3] and f32[4] do not broadcast");
  expectError(OpKind::Sub, {in({2}), in({2}, DType::I64)}, {},
              "have different dtypes");
  EXPECT_EQ(type(OpKind::Mul, {in({2}, DType::U8), in({2}, DType::U8)}),
            TensorType(DType::U8, {2}));
  expectError(OpKind::Mul, {in({2}, DType::Bool), in({2}, DType::Bool)}, {},
              "input 0: dtype bool is not supported (Mul takes f32, f16, i8, "
              "u8, i16, i32, i64, u16, u32, u64)");
  // f64 arithmetic is native; other ops compute f64 in f32 (F64Adapter).
  EXPECT_EQ(type(OpKind::Add, {in({2}, DType::F64), in({2}, DType::F64)}),
            TensorType(DType::F64, {2}));
  expectError(OpKind::Add, {in({2})}, {}, "expects 2 to 2 inputs, got 1");
}

TEST_F(TypeRules, ElementwiseUnaryAndCast) {
  for (OpKind k : {OpKind::Relu, OpKind::LeakyRelu, OpKind::Clip,
                   OpKind::Sigmoid, OpKind::Tanh})
    EXPECT_EQ(type(k, {in({2, 5})}), f32({2, 5}));
  // Relu and Clip also take integers; the others only floats.
  EXPECT_EQ(type(OpKind::Relu, {in({2}, DType::I32)}),
            TensorType(DType::I32, {2}));
  EXPECT_EQ(type(OpKind::Clip, {in({2}, DType::U8)}), TensorType(DType::U8, {2}));
  for (OpKind k : {OpKind::LeakyRelu, OpKind::Sigmoid, OpKind::Tanh})
    expectError(k, {in({2}, DType::I32)}, {}, "takes f32, f16)");
  EXPECT_EQ(type(OpKind::Cast, {in({2, 3})}, {{"to", Attr::ofInt(7)}}),
            TensorType(DType::I64, {2, 3}));
  EXPECT_EQ(type(OpKind::Cast, {in({2}, DType::I64)}, {{"to", Attr::ofInt(10)}}),
            TensorType(DType::F16, {2}));
  EXPECT_EQ(type(OpKind::Cast, {in({2})}, {{"to", Attr::ofInt(9)}}),
            TensorType(DType::Bool, {2}));
  EXPECT_EQ(type(OpKind::Cast, {in({2})}, {{"to", Attr::ofInt(11)}}),
            TensorType(DType::F64, {2}));
  expectError(OpKind::Cast, {in({2})}, {{"to", Attr::ofInt(14)}},
              "unsupported target type COMPLEX64 (14)");
  expectError(OpKind::Cast, {in({2})}, {}, "missing required attribute 'to'");
}

TEST_F(TypeRules, Pools) {
  EXPECT_EQ(type(OpKind::MaxPool, {in({1, 64, 112, 112})},
                 {{"kernel_shape", Attr::ofInts({3, 3})},
                  {"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({1, 1, 1, 1})}}),
            f32({1, 64, 56, 56}));
  // ceil((6 - 3) / 2) + 1 = 3 with ceil_mode, 2 without.
  EXPECT_EQ(type(OpKind::AveragePool, {in({1, 1, 6, 6})},
                 {{"kernel_shape", Attr::ofInts({3, 3})},
                  {"strides", Attr::ofInts({2, 2})},
                  {"ceil_mode", Attr::ofInt(1)}}),
            f32({1, 1, 3, 3}));
  EXPECT_EQ(type(OpKind::AveragePool, {in({1, 1, 6, 6})},
                 {{"kernel_shape", Attr::ofInts({3, 3})},
                  {"strides", Attr::ofInts({2, 2})}}),
            f32({1, 1, 2, 2}));
  EXPECT_EQ(type(OpKind::MaxPool, {in({1, 2, 9}, DType::U8)},
                 {{"kernel_shape", Attr::ofInts({3})}}),
            TensorType(DType::U8, {1, 2, 7}));
  EXPECT_EQ(type(OpKind::GlobalAveragePool, {in({1, 512, 7, 7})}),
            f32({1, 512, 1, 1}));
  expectError(OpKind::MaxPool, {in({1, 1, 8, 8})}, {},
              "missing required attribute 'kernel_shape'");
  expectError(OpKind::MaxPool, {in({1, 1, 8, 8})},
              {{"kernel_shape", Attr::ofInts({3})}}, "kernel has 1 dimensions");
  expectError(OpKind::AveragePool, {in({1, 1, 8, 8}, DType::U8)},
              {{"kernel_shape", Attr::ofInts({3, 3})}}, "takes f32)");
  expectError(OpKind::AveragePool, {in({8, 8})},
              {{"kernel_shape", Attr::ofInts({3, 3})}}, "N x C");
  expectError(OpKind::GlobalAveragePool, {in({1, 8})}, {}, "N x C x D1");
}

TEST_F(TypeRules, Normalization) {
  Value *c = in({3});
  EXPECT_EQ(type(OpKind::BatchNormalization, {in({2, 3, 4, 4}), c, c, c, c}),
            f32({2, 3, 4, 4}));
  expectError(OpKind::BatchNormalization,
              {in({2, 3, 4, 4}), c, c, in({4}), c}, {},
              "mean must be [3], got f32[4]");
  expectError(OpKind::BatchNormalization, {in({2, 3, 4, 4}), c, c, c, c},
              {{"training_mode", Attr::ofInt(1)}}, "training_mode=1");
  EXPECT_EQ(type(OpKind::Softmax, {in({2, 10})}), f32({2, 10}));
  EXPECT_EQ(type(OpKind::Softmax, {in({2, 10, 3})}, {{"axis", Attr::ofInt(1)}}),
            f32({2, 10, 3}));
  expectError(OpKind::Softmax, {in({2, 10})}, {{"axis", Attr::ofInt(2)}},
              "axis 2 is out of range for f32[2,10]");
}

TEST_F(TypeRules, FlattenReshape) {
  Value *x = in({2, 3, 4});
  EXPECT_EQ(type(OpKind::Flatten, {x}), f32({2, 12}));
  EXPECT_EQ(type(OpKind::Flatten, {x}, {{"axis", Attr::ofInt(0)}}), f32({1, 24}));
  EXPECT_EQ(type(OpKind::Flatten, {x}, {{"axis", Attr::ofInt(3)}}), f32({24, 1}));
  EXPECT_EQ(type(OpKind::Flatten, {x}, {{"axis", Attr::ofInt(-1)}}), f32({6, 4}));
  expectError(OpKind::Flatten, {x}, {{"axis", Attr::ofInt(4)}}, "out of range");

  auto reshape = [&](llvm::ArrayRef<int64_t> shape, int64_t allowZero = 0) {
    return type(OpKind::Reshape, {x},
                {{"shape", Attr::ofInts(shape)},
                 {"allowzero", Attr::ofInt(allowZero)}});
  };
  EXPECT_EQ(reshape({0, -1}), f32({2, 12}));
  EXPECT_EQ(reshape({-1}), f32({24}));
  EXPECT_EQ(reshape({4, 0, 2}), f32({4, 3, 2}));
  EXPECT_EQ(reshape({2, 3, 4, 1}, 1), f32({2, 3, 4, 1}));
  expectError(OpKind::Reshape, {x}, {{"shape", Attr::ofInts({-1, -1})}},
              "more than one -1");
  expectError(OpKind::Reshape, {x}, {{"shape", Attr::ofInts({5, 5})}},
              "cannot reshape f32[2,3,4] (24 elements) to [5,5] (25 elements)");
  expectError(OpKind::Reshape, {x}, {{"shape", Attr::ofInts({5, -1})}},
              "cannot infer the -1");
  expectError(OpKind::Reshape, {x}, {{"shape", Attr::ofInts({24, 1, 1, 0})}},
              "copies dimension 3");
  expectError(OpKind::Reshape, {x}, {{"shape", Attr::ofInts({-2, -12})}},
              "negative entry");
  expectError(OpKind::Reshape, {x}, {}, "missing required attribute 'shape'");
  // 2^32 * 2^32 wraps to 0 in int64: checked, not compared against a wrapped count.
  expectError(OpKind::Reshape, {x}, {{"shape", Attr::ofInts({int64_t(1) << 32, int64_t(1) << 32, -1})}},
              "shape [4294967296,4294967296,-1] has more elements than int64 counts");
}

// Extents multiplied by a model's attributes are checked, not wrapped.
TEST_F(TypeRules, ShapeArithmeticOverflowIsAnError) {
  expectError(OpKind::Tile, {in({2, 3})}, {{"repeats", Attr::ofInts({1, INT64_MAX / 2})}},
              "repeats [1,4611686018427387903] of f32[2,3] overflow int64");
  expectError(OpKind::DepthToSpace, {in({1, 4, 2, 2})},
              {{"blocksize", Attr::ofInt(int64_t(1) << 32)}},
              "channels of f32[1,4,2,2] do not divide by blocksize^2");
  expectError(OpKind::DepthToSpace, {in({1, 1, 3, 2})},
              {{"blocksize", Attr::ofInt(1)}, {"mode", Attr::ofString("XYZ")}},
              "attribute 'mode' must be one of \"DCR\", \"CRD\", got \"XYZ\"");
  expectError(OpKind::SpaceToDepth, {in({1, 1, 0, 0})},
              {{"blocksize", Attr::ofInt(INT64_MAX)}},
              "height and width of f32[1,1,0,0] do not divide by the blocksize");
  auto scalar = [](float v) {
    return Attr::ofTensor(Tensor::fromValues<float>(DType::F32, {}, {v}));
  };
  // (3e38 - 0) / 1e-30 elements: no int64 holds the count.
  expectError(OpKind::Range, {},
              {{"start", scalar(0)}, {"limit", scalar(3e38f)}, {"delta", scalar(1e-30f)}},
              "give no element count");
}

TEST_F(TypeRules, TransposeConcatPad) {
  Value *x = in({2, 3, 4}, DType::I64);
  EXPECT_EQ(type(OpKind::Transpose, {x}), TensorType(DType::I64, {4, 3, 2}));
  EXPECT_EQ(type(OpKind::Transpose, {x}, {{"perm", Attr::ofInts({0, 2, 1})}}),
            TensorType(DType::I64, {2, 4, 3}));
  expectError(OpKind::Transpose, {x}, {{"perm", Attr::ofInts({0, 0, 1})}},
              "perm [0,0,1] is not a permutation");
  expectError(OpKind::Transpose, {x}, {{"perm", Attr::ofInts({1, 0})}},
              "not a permutation");

  EXPECT_EQ(type(OpKind::Concat, {in({2, 3}), in({2, 5}), in({2, 1})},
                 {{"axis", Attr::ofInt(-1)}}),
            f32({2, 9}));
  expectError(OpKind::Concat, {in({2, 3}), in({3, 3})},
              {{"axis", Attr::ofInt(1)}},
              "input 1 f32[3,3] differs from input 0 f32[2,3] in dimension 0");
  expectError(OpKind::Concat, {in({2, 3}), in({2, 3}, DType::I32)},
              {{"axis", Attr::ofInt(0)}}, "in dtype and rank");
  expectError(OpKind::Concat, {in({2, 3})}, {{"axis", Attr::ofInt(2)}},
              "axis 2 is out of range");
  expectError(OpKind::Concat, {in({2, 3})}, {},
              "missing required attribute 'axis'");

  EXPECT_EQ(type(OpKind::Pad, {in({2, 3})}, {{"pads", Attr::ofInts({1, 0, 1, 2})}}),
            f32({4, 5}));
  EXPECT_EQ(type(OpKind::Pad, {in({2, 3})},
                 {{"pads", Attr::ofInts({0, -1, 0, 0})}}),
            f32({2, 2}));
  expectError(OpKind::Pad, {in({2, 3})}, {{"pads", Attr::ofInts({1, 1})}},
              "pads has 2 entries, f32[2,3] needs 4");
  expectError(OpKind::Pad, {in({2, 3})},
              {{"pads", Attr::ofInts({0, 0, 0, 0})},
               {"mode", Attr::ofString("circular")}},
              "attribute 'mode' must be one of \"constant\", \"reflect\", \"edge\", "
              "\"wrap\", got \"circular\"");
  EXPECT_EQ(type(OpKind::Pad, {in({2, 3})},
                 {{"pads", Attr::ofInts({0, 4, 0, 5})}, {"mode", Attr::ofString("wrap")}}),
            f32({2, 12}));
  expectError(OpKind::Pad, {in({2, 0})},
              {{"pads", Attr::ofInts({0, 1, 0, 0})}, {"mode", Attr::ofString("wrap")}},
              "wrap pad of empty dimension 1");
  expectError(OpKind::Pad, {in({2, 3})},
              {{"pads", Attr::ofInts({0, 3, 0, 0})},
               {"mode", Attr::ofString("reflect")}},
              "reflect pad 3 needs dimension 1 to be larger");
  expectError(OpKind::Pad, {in({2, 3})}, {{"pads", Attr::ofInts({0, -4, 0, 0})}},
              "pads remove more than");
  expectError(OpKind::Pad, {in({2, 3})},
              {{"pads", Attr::ofInts({0, INT64_MAX, 0, 1})}},
              "pads 9223372036854775807 and 1 of dimension 1 (extent 3) overflow int64");
  // No overflow, but far beyond a tensor's size.
  expectError(OpKind::Pad, {in({2, 3})},
              {{"pads", Attr::ofInts({0, INT64_MAX - 3, 0, 0})}},
              "a result of shape [2,9223372036854775807] would exceed kiln's limit");
}

TEST_F(TypeRules, SmallShapeOps) {
  EXPECT_EQ(type(OpKind::Identity, {in({3}, DType::Bool)}),
            TensorType(DType::Bool, {3}));
  std::vector<TensorType> dropout = types(OpKind::Dropout, {in({2, 3})});
  ASSERT_EQ(dropout.size(), 2u);
  EXPECT_EQ(dropout[0], f32({2, 3}));
  EXPECT_EQ(dropout[1], TensorType(DType::Bool, {2, 3}));
  expectError(OpKind::Dropout, {in({2}), in({}), in({}, DType::F32)}, {},
              "input 2: dtype f32 is not supported (Dropout takes bool)");

  Value *x = in({2, 3, 4});
  EXPECT_EQ(type(OpKind::Shape, {x}), TensorType(DType::I64, {3}));
  EXPECT_EQ(type(OpKind::Shape, {x}, {{"start", Attr::ofInt(1)}}),
            TensorType(DType::I64, {2}));
  EXPECT_EQ(type(OpKind::Shape, {x}, {{"end", Attr::ofInt(-1)}}),
            TensorType(DType::I64, {2}));
  EXPECT_EQ(type(OpKind::Shape, {x}, {{"start", Attr::ofInt(5)}}),
            TensorType(DType::I64, {0}));
  EXPECT_EQ(type(OpKind::Shape, {x},
                 {{"start", Attr::ofInt(-10)}, {"end", Attr::ofInt(10)}}),
            TensorType(DType::I64, {3}));

  Value *data = in({5, 4}, DType::I64);
  EXPECT_EQ(type(OpKind::Gather, {data, in({2, 3}, DType::I32)}),
            TensorType(DType::I64, {2, 3, 4}));
  EXPECT_EQ(type(OpKind::Gather, {data, in({}, DType::I64)},
                 {{"axis", Attr::ofInt(-1)}}),
            TensorType(DType::I64, {5}));
  expectError(OpKind::Gather, {data, in({2})}, {},
              "input 1: dtype f32 is not supported (Gather takes i32, i64)");
  expectError(OpKind::Gather, {data, in({2}, DType::I64)},
              {{"axis", Attr::ofInt(2)}}, "axis 2 is out of range");

  Value *y = in({3, 4});
  EXPECT_EQ(type(OpKind::Unsqueeze, {y}, {{"axes", Attr::ofInts({0, 3})}}),
            f32({1, 3, 4, 1}));
  EXPECT_EQ(type(OpKind::Unsqueeze, {y}, {{"axes", Attr::ofInts({-1})}}),
            f32({3, 4, 1}));
  expectError(OpKind::Unsqueeze, {y}, {{"axes", Attr::ofInts({1, -3})}},
              "repeat an axis");
  expectError(OpKind::Unsqueeze, {y}, {{"axes", Attr::ofInts({3})}},
              "axis 3 is out of range for rank 3");
  expectError(OpKind::Unsqueeze, {y}, {}, "missing required attribute 'axes'");

  Value *z = in({1, 3, 1, 4});
  EXPECT_EQ(type(OpKind::Squeeze, {z}), f32({3, 4}));
  EXPECT_EQ(type(OpKind::Squeeze, {z}, {{"axes", Attr::ofInts({-2})}}),
            f32({1, 3, 4}));
  expectError(OpKind::Squeeze, {z}, {{"axes", Attr::ofInts({1})}},
              "cannot squeeze axis 1 of f32[1,3,1,4]");
}

TEST_F(TypeRules, QuantizedInputsOnlyWhereAnOpHasAnInt8Form) {
  TensorType q(DType::I8, {2, 3});
  q.quant.scales = {0.5f};
  q.quant.zeroPoints = {-3};
  Value *x = g.addInput("q", q);
  // Max and Div would compute on the raw integers.
  expectError(OpKind::Max, {x, x}, {}, "has no int8 form: its input i8[2,3]");
  expectError(OpKind::Div, {x, x}, {}, "has no int8 form");
  // Moving values keeps them; Dequantize has an int8 form.
  EXPECT_EQ(type(OpKind::Transpose, {x}).quant.zeroPoints, q.quant.zeroPoints);
  EXPECT_EQ(type(OpKind::Dequantize, {x}), f32({2, 3}));
}

} // namespace
} // namespace kiln
