//===- ReduceKernelTest.cpp - Reduce* and ArgMax/ArgMin --------------------===//
//
// One kernel serves every reduction (KILN_REDUCE_OP): each op over leading,
// inner, trailing, several and all axes, with and without keepdims, on rows
// that fill vectors and leave tails; ArgMax/ArgMin with ties, first or last.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln {
namespace {

using namespace test;

struct AxesCase {
  const char *name;
  Shape x;
  /// Empty: every axis.
  std::vector<int64_t> axes;
};

const AxesCase kAxes[] = {
    {"Leading", {5, 3, 4}, {0}},
    {"Inner", {2, 7, 6}, {1}},
    {"Trailing", {3, 37}, {-1}},
    {"TwoApart", {3, 4, 5, 6}, {0, 2}},
    {"TwoTrailing", {2, 3, 9, 11}, {2, 3}},
    {"All", {4, 5, 6}, {}},
    // Rows of consecutive elements go a vector at a time: many vectors and
    // a tail, and an axis of extent 1 after the reduced one.
    {"LongRows", {2, 300}, {-1}},
    {"TrailingBeforeOne", {3, 40, 1}, {1}},
    // Reduced axes before kept ones go a vector of columns at a time: full
    // vectors side by side and a tail, two reduced axes as one, axes of
    // extent 1 between them.
    {"Columns", {3, 37, 40}, {1}},
    {"ColumnsOfTwoAxes", {2, 3, 5, 70}, {1, 2}},
    {"LeadingColumns", {50, 2, 33}, {0}},
    {"ColumnsAroundOnes", {1, 9, 1, 20}, {0, 1, 2}},
};

struct ReduceCase {
  OpKind op;
  AxesCase axes;
  bool keepdims;
};

class ReduceKernel : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(ReduceKernel, MatchesTheInterpreter) {
  const ReduceCase &c = GetParam();
  AttrMap attrs{{"keepdims", Attr::ofInt(c.keepdims)}};
  if (!c.axes.axes.empty())
    attrs["axes"] = Attr::ofInts(c.axes.axes);
  JitCheck check;
  // Positive inputs, where logarithms and products are defined and tame.
  if (c.op == OpKind::ReduceLogSum || c.op == OpKind::ReduceProd) {
    check.lo = 0.5f;
    check.hi = 1.5f;
  }
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(c.op, {f32(c.axes.x)}, attrs), check));
}

std::vector<ReduceCase> reduceCases() {
  std::vector<ReduceCase> cases;
  for (OpKind op : {OpKind::ReduceSum, OpKind::ReduceMean, OpKind::ReduceMax,
                    OpKind::ReduceMin, OpKind::ReduceProd, OpKind::ReduceL1,
                    OpKind::ReduceL2, OpKind::ReduceLogSum, OpKind::ReduceLogSumExp,
                    OpKind::ReduceSumSquare})
    for (const AxesCase &a : kAxes)
      for (bool keep : {true, false})
        cases.push_back({op, a, keep});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Axes, ReduceKernel, ::testing::ValuesIn(reduceCases()),
                         [](const auto &info) {
                           const ReduceCase &c = info.param;
                           return getOpDef(c.op).name + std::string("_") + c.axes.name +
                                  (c.keepdims ? "_KeepDims" : "");
                         });

TEST(ReduceKernel, IntegerSumAndMaxMatchTheInterpreter) {
  for (OpKind op : {OpKind::ReduceSum, OpKind::ReduceMax, OpKind::ReduceMin})
    for (DType t : {DType::I32, DType::I64}) {
      SCOPED_TRACE(getOpDef(op).name + std::string(" ") + dtypeName(t).str());
      JitCheck check;
      check.rtol = 0;
      EXPECT_TRUE(jitMatchesInterpreter(
          singleNode(op, {TensorType(t, {3, 4, 5})}, {{"axes", Attr::ofInts({1})}}),
          check));
    }
}

/// Max and Min of `shape` over `axis`, NaN at the elements `nans`: NaN wins.
void expectNaNWins(const Shape &shape, int64_t axis, llvm::ArrayRef<int64_t> nans) {
  Tensor x(f32(shape));
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setFromDouble(i, double((i * 37) % 11) - 5);
  for (int64_t i : nans)
    x.setFromDouble(i, std::nan(""));
  for (OpKind op : {OpKind::ReduceMax, OpKind::ReduceMin}) {
    SCOPED_TRACE(getOpDef(op).name);
    JitCheck check;
    check.inputs = {x};
    check.rtol = 0;
    EXPECT_TRUE(
        jitMatchesInterpreter(singleNode(op, {f32(shape)}, {{"axes", Attr::ofInts({axis})}}), check));
  }
}

/// NaN wins a Max or Min wherever it is in the row: in the first vector, in
/// the tail, or nowhere.
TEST(ReduceKernel, NaNWinsMaxAndMinOfRows) { expectNaNWins({3, 40}, 1, {3, 40 + 38}); }

/// The same down columns: NaN in a column's first row, in its last, in the
/// tail vector's columns.
TEST(ReduceKernel, NaNWinsMaxAndMinOfColumns) {
  expectNaNWins({30, 21}, 0, {2, 29 * 21 + 5, 7 * 21 + 20});
}

struct ArgCase {
  const char *name;
  Shape x;
  int64_t axis;
};

class ArgKernel : public ::testing::TestWithParam<std::tuple<OpKind, ArgCase, bool, bool>> {};

/// Inputs of few distinct values, so that ties decide first or last.
TEST_P(ArgKernel, MatchesTheInterpreterWithTies) {
  auto [op, c, keepdims, last] = GetParam();
  Tensor x(f32(c.x));
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setFromDouble(i, double((i * 7919) % 5) - 2);
  JitCheck check;
  check.inputs = {x};
  check.rtol = 0;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(op, {f32(c.x)},
                 {{"axis", Attr::ofInt(c.axis)},
                  {"keepdims", Attr::ofInt(keepdims)},
                  {"select_last_index", Attr::ofInt(last)}}),
      check));
}

INSTANTIATE_TEST_SUITE_P(
    Axes, ArgKernel,
    ::testing::Combine(::testing::Values(OpKind::ArgMax, OpKind::ArgMin),
                       ::testing::Values(ArgCase{"Leading", {6, 5}, 0},
                                         ArgCase{"Inner", {2, 9, 4}, 1},
                                         ArgCase{"Trailing", {3, 37}, -1}),
                       ::testing::Bool(), ::testing::Bool()),
    [](const auto &info) {
      const auto &p = info.param;
      return getOpDef(std::get<0>(p)).name + std::string("_") + std::get<1>(p).name +
             (std::get<2>(p) ? "_KeepDims" : "") + (std::get<3>(p) ? "_Last" : "_First");
    });

} // namespace
} // namespace kiln
