//===- RowVectorMatMulTest.cpp --------------------------------------------===//
//
// row-vector-matmul against the interpreter: a constant matrix times a
// column, alone, batched, and broadcast over the column's batch, computes
// the same as the row times the transposed matrices.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct ColumnCase {
  const char *name;
  Shape matrix, column;
};

class RowVectorMatMul : public ::testing::TestWithParam<ColumnCase> {};

TEST_P(RowVectorMatMul, MatchesTheColumnForm) {
  const ColumnCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *u = g.addInput("u", f32(c.column));
    Value *w = randomConstant(g, "w", c.matrix);
    g.addOutput("y", addNode(g, OpKind::MatMul, "mm", {w, u}, {})->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createRowVectorMatMulPass();
  EXPECT_TRUE(runPass(*pass, *g));
  Node *mm = findOnly(*g, OpKind::MatMul);
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->getInput(0)->getType().shape[mm->getInput(0)->getType().rank() - 2], 1);
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, RowVectorMatMul,
    ::testing::Values(ColumnCase{"Matrix", {7, 5}, {5, 1}},
                      ColumnCase{"Batched", {6, 9, 4}, {6, 4, 1}},
                      ColumnCase{"MatrixOverABatch", {5, 4}, {2, 3, 4, 1}},
                      ColumnCase{"BroadcastBatch", {1, 6, 3}, {4, 3, 1}}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace kiln
