//===- PoolKernelTest.cpp - MaxPool, AveragePool, GlobalAveragePool -------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct PoolCase {
  const char *name;
  Shape x;
  AttrMap attrs;
};

struct PoolParam {
  OpKind op;
  PoolCase c;
};

/// Window geometries both pools take. Those whose rows and columns reduced
/// separately read fewer taps (3x3 and 5x5 of column stride 1, 5x5 of 2,
/// the 17x17 beyond the unrolled kernel's taps) run the separable plane
/// kernel, the others the plain one (select_kernels_test checks which).
const PoolCase kWindows[] = {
    {"K2S2", {1, 3, 8, 8},
     {{"kernel_shape", Attr::ofInts({2, 2})}, {"strides", Attr::ofInts({2, 2})}}},
    {"K3S1", {1, 2, 7, 6}, {{"kernel_shape", Attr::ofInts({3, 3})}}},
    {"K3S1Pad1", {1, 2, 7, 6},
     {{"kernel_shape", Attr::ofInts({3, 3})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
    {"K3S2Pad1", {2, 3, 9, 9},
     {{"kernel_shape", Attr::ofInts({3, 3})},
      {"strides", Attr::ofInts({2, 2})},
      {"pads", Attr::ofInts({1, 1, 1, 1})}}},
    {"K3S1Pad1Wide", {1, 2, 5, 70},
     {{"kernel_shape", Attr::ofInts({3, 3})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
    {"K5S2Pad2", {1, 2, 11, 37},
     {{"kernel_shape", Attr::ofInts({5, 5})},
      {"strides", Attr::ofInts({2, 2})},
      {"pads", Attr::ofInts({2, 2, 2, 2})}}},
    {"K5S2Pad1CeilMode", {1, 2, 12, 13},
     {{"kernel_shape", Attr::ofInts({5, 5})},
      {"strides", Attr::ofInts({2, 2})},
      {"pads", Attr::ofInts({1, 1, 1, 1})},
      {"ceil_mode", Attr::ofInt(1)}}},
    {"K3x5SameUpper", {1, 2, 9, 10},
     {{"kernel_shape", Attr::ofInts({3, 5})}, {"auto_pad", Attr::ofString("SAME_UPPER")}}},
    {"K17S1Pad8", {1, 2, 20, 19},
     {{"kernel_shape", Attr::ofInts({17, 17})}, {"pads", Attr::ofInts({8, 8, 8, 8})}}},
    // One window the size of the plane, shifted by the padding: not a global pool.
    {"PlaneSizedPadded", {1, 2, 4, 4},
     {{"kernel_shape", Attr::ofInts({4, 4})},
      {"strides", Attr::ofInts({4, 4})},
      {"pads", Attr::ofInts({1, 1, 1, 1})}}},
    {"AsymmetricPads", {1, 2, 6, 7},
     {{"kernel_shape", Attr::ofInts({3, 2})}, {"pads", Attr::ofInts({0, 1, 2, 0})}}},
    {"NonSquare", {1, 2, 5, 11},
     {{"kernel_shape", Attr::ofInts({2, 3})}, {"strides", Attr::ofInts({1, 2})}}},
    {"CeilMode", {1, 2, 8, 8},
     {{"kernel_shape", Attr::ofInts({3, 3})},
      {"strides", Attr::ofInts({2, 2})},
      {"ceil_mode", Attr::ofInt(1)}}},
    {"CeilModePadded", {1, 2, 6, 7},
     {{"kernel_shape", Attr::ofInts({3, 3})},
      {"strides", Attr::ofInts({2, 2})},
      {"pads", Attr::ofInts({1, 1, 1, 1})},
      {"ceil_mode", Attr::ofInt(1)}}},
    {"CeilModeNoEffect", {1, 2, 7, 7},
     {{"kernel_shape", Attr::ofInts({3, 3})},
      {"strides", Attr::ofInts({2, 2})},
      {"ceil_mode", Attr::ofInt(1)}}},
    {"SameUpper", {1, 2, 7, 8},
     {{"kernel_shape", Attr::ofInts({3, 3})},
      {"strides", Attr::ofInts({2, 2})},
      {"auto_pad", Attr::ofString("SAME_UPPER")}}},
    {"SameLower", {1, 2, 7, 8},
     {{"kernel_shape", Attr::ofInts({2, 2})},
      {"auto_pad", Attr::ofString("SAME_LOWER")}}},
    {"Valid", {1, 2, 7, 8},
     {{"kernel_shape", Attr::ofInts({3, 3})},
      {"strides", Attr::ofInts({2, 2})},
      {"auto_pad", Attr::ofString("VALID")}}},
};

std::vector<PoolParam> poolCases() {
  std::vector<PoolParam> cases;
  for (const PoolCase &c : kWindows)
    cases.push_back({OpKind::MaxPool, c});
  for (const PoolCase &c : kWindows) {
    cases.push_back({OpKind::AveragePool, c});
    // Where a window crosses the padding, also count the padded taps.
    if (c.attrs.count("pads") || c.attrs.count("auto_pad") || c.attrs.count("ceil_mode")) {
      PoolCase withPad = c;
      withPad.attrs["count_include_pad"] = Attr::ofInt(1);
      cases.push_back({OpKind::AveragePool, withPad});
    }
  }
  // Dilated windows (MaxPool only: AveragePool has no dilations).
  cases.push_back({OpKind::MaxPool,
                   {"Dilation2", {1, 2, 9, 9},
                    {{"kernel_shape", Attr::ofInts({3, 3})},
                     {"dilations", Attr::ofInts({2, 2})}}}});
  cases.push_back({OpKind::MaxPool,
                   {"DilationStridePadCeil", {1, 2, 10, 9},
                    {{"kernel_shape", Attr::ofInts({2, 3})},
                     {"dilations", Attr::ofInts({2, 1})},
                     {"strides", Attr::ofInts({2, 2})},
                     {"pads", Attr::ofInts({1, 0, 1, 1})},
                     {"ceil_mode", Attr::ofInt(1)}}}});
  return cases;
}

std::string poolCaseName(const PoolParam &p) {
  std::string name = getOpDef(p.op).name + std::string("_") + p.c.name;
  if (p.c.attrs.count("count_include_pad"))
    name += "_CountIncludePad";
  return name;
}

class PoolKernel : public ::testing::TestWithParam<PoolParam> {};

TEST_P(PoolKernel, MatchesTheInterpreter) {
  const PoolParam &p = GetParam();
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(p.op, {f32(p.c.x)}, p.c.attrs)));
}

/// All-negative inputs: padding must never win a max (it is not a 0).
TEST_P(PoolKernel, MatchesTheInterpreterOnNegativeInputs) {
  const PoolParam &p = GetParam();
  JitCheck check;
  check.lo = -3.0f;
  check.hi = -1.0f;
  EXPECT_TRUE(
      jitMatchesInterpreter(singleNode(p.op, {f32(p.c.x)}, p.c.attrs), check));
}

INSTANTIATE_TEST_SUITE_P(Windows, PoolKernel, ::testing::ValuesIn(poolCases()),
                         [](const auto &info) { return poolCaseName(info.param); });

/// pads larger than the kernel leave the first window with no input tap.
GraphBuilder windowInPadding(int64_t countIncludePad) {
  return singleNode(OpKind::AveragePool, {f32({1, 2, 3, 3})},
                    {{"kernel_shape", Attr::ofInts({2, 2})},
                     {"pads", Attr::ofInts({2, 2, 0, 0})},
                     {"count_include_pad", Attr::ofInt(countIncludePad)}});
}

TEST(AveragePoolKernel, AWindowEntirelyInPaddingCountingPadsIsZero) {
  EXPECT_TRUE(jitMatchesInterpreter(windowInPadding(1)));
}

TEST(AveragePoolKernel, AWindowEntirelyInPaddingNotCountingPadsIsNaN) {
  EXPECT_TRUE(jitMatchesInterpreter(windowInPadding(0)));
}

TEST(GlobalAveragePoolKernel, MatchesTheInterpreter) {
  for (Shape x : {Shape{2, 3, 5, 7}, Shape{1, 16, 1, 1}, Shape{1, 4, 13, 13}}) {
    SCOPED_TRACE(shapeStr(x));
    JitCheck check;
    check.expectGraph = [](const Graph &g) {
      EXPECT_EQ(countOps(g, OpKind::GlobalAveragePool), 0u);
      EXPECT_EQ(countOps(g, OpKind::AveragePool), 1u);
    };
    EXPECT_TRUE(jitMatchesInterpreter(
        singleNode(OpKind::GlobalAveragePool, {f32(x)}), check));
  }
}

} // namespace
} // namespace kiln
