//===- OnnxDTypesTest.cpp - ONNX's dtype numbers ---------------------------===//
//
// Against the TensorProto.DataType numbers of onnx.proto.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/OnnxDTypes.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(DTypes, OnnxNumbering) {
  EXPECT_EQ(dtypeFromOnnx(1), DType::F32);
  EXPECT_EQ(dtypeFromOnnx(2), DType::U8);
  EXPECT_EQ(dtypeFromOnnx(3), DType::I8);
  EXPECT_EQ(dtypeFromOnnx(5), DType::I16);
  EXPECT_EQ(dtypeFromOnnx(6), DType::I32);
  EXPECT_EQ(dtypeFromOnnx(7), DType::I64);
  EXPECT_EQ(dtypeFromOnnx(9), DType::Bool);
  EXPECT_EQ(dtypeFromOnnx(10), DType::F16);
  EXPECT_EQ(dtypeFromOnnx(4), DType::U16);
  EXPECT_EQ(dtypeFromOnnx(11), DType::F64);
  EXPECT_EQ(dtypeFromOnnx(12), DType::U32);
  EXPECT_EQ(dtypeFromOnnx(13), DType::U64);
  EXPECT_FALSE(dtypeFromOnnx(14).has_value());
  EXPECT_FALSE(dtypeFromOnnx(16).has_value());
  EXPECT_EQ(onnxDTypeName(11), "DOUBLE");
  EXPECT_EQ(onnxDTypeName(16), "BFLOAT16");
  EXPECT_EQ(onnxDTypeName(99), "unknown");
}

} // namespace
} // namespace kiln
