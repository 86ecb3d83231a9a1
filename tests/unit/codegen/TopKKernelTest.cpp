//===- TopKKernelTest.cpp - TopKIndices ------------------------------------===//
//
// The top-k kernel against the interpreter (a stable sort of each row): on
// the last, a middle and the first axis, k of 1, a few and the whole axis,
// largest and smallest, f32, i32 and i64 data, rows with many equal values
// (the lower index first) and rows with NaNs (greater than every number).
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace kiln {
namespace {

using namespace test;

enum class Values { Distinct, FewDistinct, WithNaN };

struct TopKCase {
  const char *name;
  Shape x;
  int64_t axis, k, largest;
  DType dtype = DType::F32;
  Values values = Values::Distinct;
};

Tensor topKInput(const TopKCase &c) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> real(-100.0, 100.0);
  std::uniform_int_distribution<int> few(-2, 2), pick(0, 6);
  Tensor t(TensorType(c.dtype, c.x));
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = c.values == Values::FewDistinct ? few(rng) : std::round(real(rng) * 100);
    if (c.values == Values::WithNaN && pick(rng) == 0)
      v = std::nan("");
    t.setFromDouble(i, v);
  }
  return t;
}

class TopKKernel : public ::testing::TestWithParam<TopKCase> {};

TEST_P(TopKKernel, MatchesTheInterpreter) {
  const TopKCase &c = GetParam();
  JitCheck check;
  check.inputs = {topKInput(c)};
  check.rtol = 0;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::TopKIndices, {TensorType(c.dtype, c.x)},
                 {{"axis", Attr::ofInt(c.axis)},
                  {"k", Attr::ofInt(c.k)},
                  {"largest", Attr::ofInt(c.largest)}}),
      check));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TopKKernel,
    ::testing::Values(
        TopKCase{"Top5Of1000", {1, 1000}, 1, 5, 1},
        TopKCase{"Bottom5Of1000", {1, 1000}, 1, 5, 0},
        TopKCase{"K1", {3, 50}, 1, 1, 1},
        TopKCase{"WholeMiddleAxis", {2, 37, 3}, 1, 37, 1},
        TopKCase{"FirstAxis", {40, 6}, 0, 7, 0},
        TopKCase{"Ties", {4, 64}, 1, 20, 1, DType::F32, Values::FewDistinct},
        TopKCase{"TiesSmallest", {4, 64}, 1, 20, 0, DType::F32, Values::FewDistinct},
        TopKCase{"NaN", {5, 30}, 1, 12, 1, DType::F32, Values::WithNaN},
        TopKCase{"NaNSmallest", {5, 30}, 1, 30, 0, DType::F32, Values::WithNaN},
        TopKCase{"Int32Ties", {3, 4, 40}, 2, 9, 1, DType::I32, Values::FewDistinct},
        TopKCase{"Int64", {2, 100, 2}, 1, 10, 0, DType::I64}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace kiln
