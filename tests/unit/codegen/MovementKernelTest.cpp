//===- MovementKernelTest.cpp - Transpose, Concat, Pad, reshapes, copies --===//
//
// Data movement is exact, so these compare with tolerance 0.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

JitCheck exact() {
  JitCheck check;
  check.rtol = 0;
  return check;
}

//===----------------------------------------------------------------------===//
// Transpose
//===----------------------------------------------------------------------===//

struct TransposeCase {
  const char *name;
  Shape x;
  Shape perm; ///< empty: the default (reversed) order
  DType dtype = DType::F32;
};

class TransposeKernel : public ::testing::TestWithParam<TransposeCase> {};

TEST_P(TransposeKernel, MatchesTheInterpreter) {
  const TransposeCase &c = GetParam();
  AttrMap attrs;
  if (!c.perm.empty())
    attrs["perm"] = Attr::ofInts(c.perm);
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Transpose, {TensorType(c.dtype, c.x)}, attrs), exact()));
}

INSTANTIATE_TEST_SUITE_P(
    Perms, TransposeKernel,
    ::testing::Values(
        TransposeCase{"Rank2", {3, 5}, {1, 0}},
        TransposeCase{"Rank2Default", {7, 4}, {}},
        TransposeCase{"Rank2Identity", {3, 5}, {0, 1}},
        TransposeCase{"Rank3Swap12", {2, 3, 4}, {0, 2, 1}},
        TransposeCase{"Rank3Rotate", {2, 3, 4}, {2, 0, 1}},
        TransposeCase{"Rank3Swap01", {2, 3, 4}, {1, 0, 2}},
        TransposeCase{"Rank3Default", {2, 3, 4}, {}},
        TransposeCase{"NchwToNhwc", {2, 3, 4, 5}, {0, 2, 3, 1}},
        TransposeCase{"NhwcToNchw", {2, 4, 5, 3}, {0, 3, 1, 2}},
        TransposeCase{"Rank4Reverse", {2, 3, 4, 5}, {3, 2, 1, 0}},
        TransposeCase{"Rank4UnitDims", {1, 3, 1, 5}, {2, 3, 0, 1}},
        TransposeCase{"Rank5", {2, 3, 2, 4, 3}, {0, 4, 1, 3, 2}},
        TransposeCase{"Rank5Default", {2, 1, 3, 2, 2}, {}},
        // In blocks of lanes x lanes transposed in registers (f32, the
        // last two merged dimensions swapped, each at least a vector):
        // whole and partial blocks on both sides, an outer dimension.
        TransposeCase{"BlocksNchwToNhwc", {2, 37, 5, 7}, {0, 2, 3, 1}},
        TransposeCase{"BlocksNhwcToNchw", {1, 6, 7, 33}, {0, 3, 1, 2}},
        TransposeCase{"BlocksRank2Exact", {32, 16}, {1, 0}},
        TransposeCase{"BlocksRank3Swap12", {3, 17, 19}, {0, 2, 1}},
        // A few interleaved channels split by shuffles (NHWC -> NCHW of
        // an image): rows of whole vectors and rows whose last step
        // overlaps, int8 (a vector of 16 to 64 bytes a channel) and f32,
        // 2 to 4 channels, a batch of 2; rows shorter than a vector take
        // the strided copy.
        TransposeCase{"DeinterleaveInt8Image", {1, 96, 96, 3}, {0, 3, 1, 2}, DType::I8},
        TransposeCase{"DeinterleaveInt8Partial", {2, 9, 11, 3}, {0, 3, 1, 2}, DType::I8},
        TransposeCase{"DeinterleaveInt8Pairs", {1, 5, 29, 2}, {0, 3, 1, 2}, DType::I8},
        TransposeCase{"DeinterleaveInt8Quads", {1, 1, 70, 4}, {0, 3, 1, 2}, DType::I8},
        TransposeCase{"DeinterleaveInt8Short", {1, 2, 3, 3}, {0, 3, 1, 2}, DType::I8},
        TransposeCase{"DeinterleaveF32", {2, 7, 5, 3}, {0, 3, 1, 2}},
        TransposeCase{"DeinterleaveMatrix", {19, 2}, {1, 0}},
        TransposeCase{"Int64", {3, 4, 2}, {2, 0, 1}, DType::I64},
        TransposeCase{"Int32", {5, 6}, {1, 0}, DType::I32}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

struct ConcatCase {
  const char *name;
  std::vector<Shape> inputs;
  int64_t axis;
  DType dtype = DType::F32;
};

class ConcatKernel : public ::testing::TestWithParam<ConcatCase> {};

TEST_P(ConcatKernel, MatchesTheInterpreter) {
  const ConcatCase &c = GetParam();
  std::vector<TensorType> types;
  for (const Shape &s : c.inputs)
    types.emplace_back(c.dtype, s);
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Concat, types, {{"axis", Attr::ofInt(c.axis)}}), exact()));
}

INSTANTIATE_TEST_SUITE_P(
    Axes, ConcatKernel,
    ::testing::Values(
        ConcatCase{"Axis0", {{2, 3}, {4, 3}}, 0},
        ConcatCase{"Axis1ThreeInputs", {{2, 1}, {2, 5}, {2, 3}}, 1},
        ConcatCase{"Axis2", {{2, 3, 4}, {2, 3, 1}}, 2},
        ConcatCase{"Axis1Rank4", {{1, 2, 4, 4}, {1, 3, 4, 4}, {1, 1, 4, 4}}, 1},
        ConcatCase{"Axis3FourInputs",
                   {{2, 2, 3, 1}, {2, 2, 3, 2}, {2, 2, 3, 3}, {2, 2, 3, 4}}, 3},
        ConcatCase{"Axis0Rank4", {{1, 2, 3, 4}, {2, 2, 3, 4}}, 0},
        ConcatCase{"NegativeAxis", {{3, 2}, {3, 4}}, -1},
        ConcatCase{"NegativeAxisRank4", {{1, 2, 3, 2}, {1, 2, 1, 2}}, -2},
        ConcatCase{"Int64", {{2, 2}, {2, 3}}, 1, DType::I64},
        ConcatCase{"Int32", {{1, 3}, {2, 3}, {3, 3}}, 0, DType::I32}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(ConcatKernel, ConstantAndRepeatedInputs) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4}));
    Value *c = randomConstant(g, "c", {2, 1, 4});
    Node *cat = addNode(g, OpKind::Concat, "cat", {x, c, x},
                        {{"axis", Attr::ofInt(1)}});
    g.addOutput("y", cat->getOutput());
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, exact()));
}

//===----------------------------------------------------------------------===//
// Pad (constant mode)
//===----------------------------------------------------------------------===//

struct PadCase {
  const char *name;
  Shape x;
  Shape pads;
  float value;
};

class PadKernel : public ::testing::TestWithParam<PadCase> {};

TEST_P(PadKernel, MatchesTheInterpreter) {
  const PadCase &c = GetParam();
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Pad, {f32(c.x)},
                 {{"pads", Attr::ofInts(c.pads)}, {"value", Attr::ofFloat(c.value)}}),
      exact()));
}

INSTANTIATE_TEST_SUITE_P(
    Pads, PadKernel,
    ::testing::Values(
        PadCase{"SpatialZeros", {1, 2, 3, 4}, {0, 0, 1, 1, 0, 0, 1, 1}, 0.0f},
        PadCase{"AsymmetricValue", {3, 4}, {1, 2, 3, 0}, 1.5f},
        PadCase{"AllDims", {2, 3, 2}, {1, 0, 2, 2, 1, 0}, -4.0f},
        PadCase{"Negative", {4, 5}, {-1, 0, 0, -2}, 0.0f},
        PadCase{"NegativeAndPositive", {2, 4, 5}, {0, -1, 2, 1, 2, -2}, 7.0f},
        PadCase{"NoPads", {2, 3}, {0, 0, 0, 0}, 9.0f},
        PadCase{"Rank1", {6}, {3, 1}, -1.0f},
        PadCase{"RowsOfTen", {1, 19, 9, 10}, {0, 0, 1, 1, 0, 0, 2, 1}, 0.5f}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

struct SliceCase {
  const char *name;
  Shape x;
  Shape starts, ends, axes, steps;
};

class SliceKernel : public ::testing::TestWithParam<SliceCase> {};

TEST_P(SliceKernel, MatchesTheInterpreter) {
  const SliceCase &c = GetParam();
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Slice, {f32(c.x)},
                 {{"starts", Attr::ofInts(c.starts)},
                  {"ends", Attr::ofInts(c.ends)},
                  {"axes", Attr::ofInts(c.axes)},
                  {"steps", Attr::ofInts(c.steps)}}),
      exact()));
}

INSTANTIATE_TEST_SUITE_P(
    Slices, SliceKernel,
    ::testing::Values(
        // Rows of 7, 9 and 3 at step 1, a strided last axis, a reversed one.
        SliceCase{"SevenBySevenOfEight", {1, 24, 8, 8}, {0, 1}, {7, 8}, {2, 3}, {1, 1}},
        SliceCase{"ChannelsAndRowsOfNine", {2, 30, 5, 11}, {3, 1}, {20, 10}, {1, 3}, {1, 1}},
        SliceCase{"RowsOfThree", {4, 17, 6}, {2}, {5}, {2}, {1}},
        SliceCase{"EveryOtherColumn", {3, 10, 12}, {1}, {12}, {2}, {2}},
        SliceCase{"Reversed", {3, 5, 9}, {-1}, {-10}, {-1}, {-1}}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// Reshape views and output copies
//===----------------------------------------------------------------------===//

TEST(OutputCopies, ReshapeOfAnInputAsOutput) {
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Reshape, {f32({2, 3, 4})}, {{"shape", Attr::ofInts({4, -1})}}),
      exact()));
}

TEST(OutputCopies, FlattenOfAResultAsOutput) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 2, 2}));
    Node *relu = addNode(g, OpKind::Relu, "relu", {x});
    Node *flat = addNode(g, OpKind::Flatten, "flat", {relu->getOutput()},
                         {{"axis", Attr::ofInt(2)}});
    g.addOutput("y", flat->getOutput());
  };
  JitCheck check = exact();
  check.expectGraph = [](const Graph &g) {
    EXPECT_EQ(countOps(g, OpKind::Reshape), 1u);
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

TEST(OutputCopies, GraphInputAsOutput) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({3, 5}));
    Value *z = g.addInput("z", TensorType(DType::I64, {4}));
    Node *tanh = addNode(g, OpKind::Tanh, "tanh", {x});
    g.addOutput("x_out", x);
    g.addOutput("y", tanh->getOutput());
    g.addOutput("z_out", z);
  };
  EXPECT_TRUE(jitMatchesInterpreter(build));
}

TEST(OutputCopies, DuplicateOutputs) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({4, 6}));
    Node *relu = addNode(g, OpKind::Relu, "relu", {x});
    Node *reshape = addNode(g, OpKind::Reshape, "reshape", {relu->getOutput()},
                            {{"shape", Attr::ofInts({24})}});
    g.addOutput("a", relu->getOutput());
    g.addOutput("b", relu->getOutput());
    g.addOutput("c", reshape->getOutput());
    g.addOutput("d", reshape->getOutput());
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, exact()));
}

TEST(OutputCopies, OutputThatIsAlsoReadByAnotherNode) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({3, 4}));
    Node *relu = addNode(g, OpKind::Relu, "relu", {x});
    Node *view = addNode(g, OpKind::Reshape, "view", {relu->getOutput()},
                         {{"shape", Attr::ofInts({2, 6})}});
    Node *sm = addNode(g, OpKind::Softmax, "sm", {view->getOutput()});
    g.addOutput("features", relu->getOutput());
    g.addOutput("probs", sm->getOutput());
  };
  EXPECT_TRUE(jitMatchesInterpreter(build));
}

TEST(OutputCopies, ConstantOutputComesFromTheWeights) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 2}));
    Node *neg = addNode(g, OpKind::Sub, "neg", {randomConstant(g, "zero", {1}, 0.0f, 0.0f), x});
    Node *folded = addNode(g, OpKind::Add, "folded",
                           {randomConstant(g, "p", {2, 3}), randomConstant(g, "q", {3})});
    g.addOutput("y", neg->getOutput());
    g.addOutput("k", folded->getOutput());
  };
  JitCheck check = exact();
  check.expectGraph = [](const Graph &g) {
    EXPECT_TRUE(g.getOutputs()[1].value->isConstant());
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

} // namespace
} // namespace kiln
