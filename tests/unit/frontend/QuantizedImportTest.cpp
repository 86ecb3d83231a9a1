//===- QuantizedImportTest.cpp - Bad quantization parameters --------------===//
//
// Inconsistent or meaningless quantization parameters in an ONNX model are
// an error that names the node, never a crash or a silently wrong model.
// (What the quantized ops compute is checked against ONNX's own test data
// by //tests/conformance and against ONNX Runtime by //tests/qdq.)
//
//===----------------------------------------------------------------------===//

#include "tests/unit/frontend/ImportTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using test::ModelBuilder;
using test::importError;

/// An initializer of `elemType` whose elements are `values`, one byte each
/// (int8/uint8) or as int32.
void addInitializer(ModelBuilder &b, const std::string &name, int32_t elemType,
                    std::vector<int64_t> dims, std::vector<int32_t> values) {
  onnx::TensorProto *t = b.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(elemType);
  for (int64_t d : dims)
    t->add_dims(d);
  for (int32_t v : values)
    t->add_int32_data(v);
}

/// x (int8 [4, 3]) -> DequantizeLinear(scale, zero point, axis) -> "y".
ModelBuilder dequantizeModel(std::vector<int64_t> scaleDims,
                             std::vector<float> scales, int64_t axis) {
  ModelBuilder b(13);
  b.input("x", {4, 3}, onnx::TensorProto::INT8).output("y");
  b.initializer("scale", scaleDims, scales);
  addInitializer(b, "zp", onnx::TensorProto::INT8, scaleDims,
                 std::vector<int32_t>(scales.size(), 0));
  test::setInt(b.node("DequantizeLinear", {"x", "scale", "zp"}, {"y"}, "dq"),
               "axis", axis);
  return b;
}

TEST(QuantizedImport, ScalesMustBePositive) {
  EXPECT_EQ(importError(dequantizeModel({}, {0.0f}, 1)),
            "node 'dq' (DequantizeLinear): scale must be positive, got 0 "
            "(element 0 of f32[])");
  EXPECT_EQ(importError(dequantizeModel({3}, {0.5f, -0.25f, 1.0f}, 1)),
            "node 'dq' (DequantizeLinear): scale must be positive, got -0.25 "
            "(element 1 of f32[3])");
}

TEST(QuantizedImport, PerAxisScalesMustMatchTheAxis) {
  std::string err = importError(dequantizeModel({3}, {0.5f, 0.25f, 1.0f}, 0));
  EXPECT_NE(err.find("node 'dq' (DequantizeLinear)"), std::string::npos) << err;
  EXPECT_NE(err.find("does not match axis 0 of i8[4,3]"), std::string::npos)
      << err;
}

TEST(QuantizedImport, QLinearConvChecksItsScales) {
  ModelBuilder b(13);
  b.input("x", {1, 1, 3, 3}, onnx::TensorProto::UINT8).output("y");
  b.initializer("xs", {}, {0.1f}).initializer("ws", {1}, {-0.1f});
  b.initializer("ys", {}, {0.2f});
  addInitializer(b, "xz", onnx::TensorProto::UINT8, {}, {128});
  addInitializer(b, "w", onnx::TensorProto::INT8, {1, 1, 1, 1}, {3});
  addInitializer(b, "wz", onnx::TensorProto::INT8, {1}, {0});
  addInitializer(b, "yz", onnx::TensorProto::UINT8, {}, {128});
  b.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"},
         "qconv");
  EXPECT_EQ(importError(b),
            "node 'qconv' (QLinearConv): w_scale must be positive, got -0.1 "
            "(element 0 of f32[1])");
}

TEST(QuantizedImport, IntegerSumsBeyondF32AreRefused) {
  // 300 products of up to 255 x 255 may exceed 2^24.
  ModelBuilder b(13);
  b.input("a", {1, 300}, onnx::TensorProto::UINT8)
      .input("b", {300, 2}, onnx::TensorProto::UINT8)
      .output("y");
  b.node("MatMulInteger", {"a", "b"}, {"y"}, "mmi");
  EXPECT_EQ(importError(b),
            "node 'mmi' (MatMulInteger): its sums of 300 products of up to "
            "255 x 255 may reach 19507500; kiln computes them in f32, exact "
            "only below 2^24");
}

} // namespace
} // namespace kiln
