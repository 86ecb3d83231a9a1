//===- RoiAlignKernelTest.cpp - RoiAlign -----------------------------------===//
//
// The RoiAlign kernel against the interpreter, over run-time regions: inside
// the image, across its edges, larger than it, reversed, a point, NaN
// corners (no samples); a fixed and an adaptive sampling grid, both
// coordinate modes, a spatial scale, avg and max, two images.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln {
namespace {

using namespace test;

struct RoiAlignCase {
  const char *name;
  const char *mode, *coordinates;
  int64_t outputHeight, outputWidth, samplingRatio;
  float spatialScale;
};

class RoiAlignKernel : public ::testing::TestWithParam<RoiAlignCase> {};

TEST_P(RoiAlignKernel, MatchesTheInterpreter) {
  const RoiAlignCase &c = GetParam();
  const Shape xShape{2, 3, 10, 12};
  const std::vector<float> boxes = {
      1.0f,  2.0f,  7.5f,  8.0f,   // inside
      -3.0f, 6.0f,  5.0f,  14.0f,  // across the left and bottom edges
      -20.f, -15.f, 30.f,  25.f,   // larger than the image
      9.0f,  7.0f,  2.0f,  1.0f,   // reversed
      4.0f,  4.0f,  4.0f,  4.0f,   // a point
      NAN,   1.0f,  NAN,   6.0f,   // NaN corners
  };
  const int64_t rois = boxes.size() / 4;
  Tensor roiData(TensorType(DType::F32, {rois, 4}));
  Tensor batch(TensorType(DType::I64, {rois}));
  for (int64_t i = 0; i < rois * 4; ++i)
    roiData.setFromDouble(i, boxes[i]);
  for (int64_t i = 0; i < rois; ++i)
    batch.setFromDouble(i, double(i % 2));
  JitCheck check;
  check.inputs = {randomInput(TensorType(DType::F32, xShape), 3), roiData, batch};
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::RoiAlign,
                 {TensorType(DType::F32, xShape), roiData.getType(), batch.getType()},
                 {{"mode", Attr::ofString(c.mode)},
                  {"coordinate_transformation_mode", Attr::ofString(c.coordinates)},
                  {"output_height", Attr::ofInt(c.outputHeight)},
                  {"output_width", Attr::ofInt(c.outputWidth)},
                  {"sampling_ratio", Attr::ofInt(c.samplingRatio)},
                  {"spatial_scale", Attr::ofFloat(c.spatialScale)}}),
      check));
}

INSTANTIATE_TEST_SUITE_P(
    Modes, RoiAlignKernel,
    ::testing::Values(
        RoiAlignCase{"AvgGrid2", "avg", "half_pixel", 5, 5, 2, 1.0f},
        RoiAlignCase{"AvgAdaptiveScaled", "avg", "output_half_pixel", 3, 4, 0, 0.5f},
        RoiAlignCase{"AvgAdaptiveOneBin", "avg", "half_pixel", 1, 1, 0, 1.0f},
        RoiAlignCase{"MaxGrid2", "max", "half_pixel", 4, 3, 2, 1.0f},
        RoiAlignCase{"MaxAdaptive", "max", "output_half_pixel", 2, 2, 0, 0.75f}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace kiln
