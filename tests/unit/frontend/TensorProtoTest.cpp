//===- TensorProtoTest.cpp - ONNX TensorProto conversion ------------------===//

#include "compiler/frontend/onnx/TensorProto.h"
#include "compiler/frontend/onnx/OnnxImporter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace kiln {
namespace {

onnx::TensorProto proto(int32_t type, std::vector<int64_t> dims) {
  onnx::TensorProto t;
  t.set_name("t");
  t.set_data_type(type);
  for (int64_t d : dims)
    t.add_dims(d);
  return t;
}

Tensor convertOk(const onnx::TensorProto &t) {
  auto r = tensorFromProto(t);
  if (!r) {
    ADD_FAILURE() << llvm::toString(r.takeError());
    return Tensor();
  }
  return std::move(*r);
}

std::string convertError(const onnx::TensorProto &t) {
  auto r = tensorFromProto(t);
  if (r) {
    ADD_FAILURE() << "conversion unexpectedly succeeded";
    return "";
  }
  return llvm::toString(r.takeError());
}

TEST(TensorProto, TypedAndRawFloatAgree) {
  const float values[] = {1.5f, -2.0f, 0.25f, 8.0f, 0.0f, -0.5f};
  onnx::TensorProto typed = proto(onnx::TensorProto::FLOAT, {2, 3});
  for (float v : values)
    typed.add_float_data(v);
  onnx::TensorProto raw = proto(onnx::TensorProto::FLOAT, {2, 3});
  raw.set_raw_data(
      std::string(reinterpret_cast<const char *>(values), sizeof(values)));
  Tensor a = convertOk(typed), b = convertOk(raw);
  EXPECT_EQ(a.getType(), TensorType(DType::F32, {2, 3}));
  EXPECT_TRUE(a.bitwiseEqual(b));
  EXPECT_EQ(a.values<float>(), llvm::ArrayRef<float>(values));
}

TEST(TensorProto, IntegerTypesFromTheirFields) {
  onnx::TensorProto i64 = proto(onnx::TensorProto::INT64, {3});
  for (int64_t v : {int64_t(1) << 40, int64_t(-1), int64_t(7)})
    i64.add_int64_data(v);
  EXPECT_EQ(convertOk(i64).values<int64_t>(),
            llvm::ArrayRef<int64_t>({int64_t(1) << 40, -1, 7}));

  // 8- and 16-bit integers and bools travel in int32_data.
  onnx::TensorProto i8 = proto(onnx::TensorProto::INT8, {3});
  for (int v : {-128, 0, 127})
    i8.add_int32_data(v);
  EXPECT_EQ(convertOk(i8).values<int8_t>(),
            llvm::ArrayRef<int8_t>({-128, 0, 127}));

  onnx::TensorProto u8 = proto(onnx::TensorProto::UINT8, {2});
  u8.add_int32_data(255);
  u8.add_int32_data(3);
  EXPECT_EQ(convertOk(u8).values<uint8_t>(), llvm::ArrayRef<uint8_t>({255, 3}));

  onnx::TensorProto i16 = proto(onnx::TensorProto::INT16, {2});
  i16.add_int32_data(-30000);
  i16.add_int32_data(30000);
  EXPECT_EQ(convertOk(i16).values<int16_t>(),
            llvm::ArrayRef<int16_t>({-30000, 30000}));

  onnx::TensorProto b = proto(onnx::TensorProto::BOOL, {3});
  for (int v : {0, 1, 5})
    b.add_int32_data(v);
  Tensor bt = convertOk(b);
  EXPECT_EQ(bt.getDType(), DType::Bool);
  EXPECT_EQ(bt.values<uint8_t>(), llvm::ArrayRef<uint8_t>({0, 1, 1}));
}

TEST(TensorProto, Float16KeepsItsBits) {
  // 1.0 is 0x3C00 and -2.0 is 0xC000 in IEEE binary16.
  onnx::TensorProto h = proto(onnx::TensorProto::FLOAT16, {2});
  h.add_int32_data(0x3C00);
  h.add_int32_data(0xC000);
  Tensor t = convertOk(h);
  EXPECT_EQ(t.getDType(), DType::F16);
  EXPECT_EQ(t.values<uint16_t>(), llvm::ArrayRef<uint16_t>({0x3C00, 0xC000}));
}

TEST(TensorProto, ScalarAndEmpty) {
  onnx::TensorProto s = proto(onnx::TensorProto::FLOAT, {});
  s.add_float_data(3.0f);
  Tensor st = convertOk(s);
  EXPECT_EQ(st.getType().rank(), 0u);
  EXPECT_EQ(st.values<float>()[0], 3.0f);

  Tensor empty = convertOk(proto(onnx::TensorProto::FLOAT, {0, 3}));
  EXPECT_EQ(empty.numElements(), 0);
}

TEST(TensorProto, MalformedProtosAreErrors) {
  onnx::TensorProto shortRaw = proto(onnx::TensorProto::FLOAT, {4});
  shortRaw.set_raw_data(std::string(12, '\0'));
  EXPECT_EQ(convertError(shortRaw),
            "tensor 't': raw_data holds 12 bytes, the dims need 16");

  onnx::TensorProto shortTyped = proto(onnx::TensorProto::INT64, {3});
  shortTyped.add_int64_data(1);
  EXPECT_EQ(convertError(shortTyped),
            "tensor 't': holds 1 values, the dims need 3");

  onnx::TensorProto noData =
      proto(onnx::TensorProto::FLOAT, {1000000000, 1000});
  EXPECT_EQ(convertError(noData),
            "tensor 't': holds 0 values, the dims need 1000000000000");

  onnx::TensorProto overflow =
      proto(onnx::TensorProto::FLOAT, {int64_t(1) << 40, int64_t(1) << 40});
  EXPECT_EQ(convertError(overflow), "tensor 't': element count overflows");
  // Empty, but its other extents' strides would overflow (a fuzz finding).
  onnx::TensorProto emptyOverflow =
      proto(onnx::TensorProto::FLOAT, {0, int64_t(1) << 40, int64_t(1) << 40});
  EXPECT_EQ(convertError(emptyOverflow), "tensor 't': element count overflows");

  onnx::TensorProto twoFields = proto(onnx::TensorProto::FLOAT, {1});
  twoFields.add_float_data(1.0f);
  twoFields.set_raw_data(std::string(4, '\0'));
  EXPECT_EQ(convertError(twoFields), "tensor 't': holds values in more than one data field");

  EXPECT_EQ(convertError(proto(onnx::TensorProto::FLOAT, {2, -1})),
            "tensor 't': negative dimension -1");
  EXPECT_EQ(convertError(proto(onnx::TensorProto::COMPLEX64, {1})),
            "tensor 't': element type COMPLEX64 is not supported");
  EXPECT_EQ(convertError(proto(onnx::TensorProto::STRING, {1})),
            "tensor 't': element type STRING is not supported");
}

/// ONNX's own test data: test_relu's output must be max(input, 0) with the
/// same shape, which checks the reader against the data's meaning rather
/// than against itself.
TEST(TensorProto, ReadsOnnxTestData) {
  const std::string dir =
      "/usr/share/libonnx-testdata/data/node/test_relu/test_data_set_0/";
  auto in = readTensorProtoFile(dir + "input_0.pb");
  ASSERT_TRUE(bool(in)) << llvm::toString(in.takeError());
  auto out = readTensorProtoFile(dir + "output_0.pb");
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  EXPECT_EQ(in->getType(), TensorType(DType::F32, {3, 4, 5}));
  ASSERT_EQ(out->getType(), in->getType());
  bool sawNegative = false;
  for (int64_t i = 0; i < in->numElements(); ++i) {
    float x = in->values<float>()[i];
    sawNegative |= x < 0;
    EXPECT_EQ(out->values<float>()[i], std::max(x, 0.0f));
  }
  EXPECT_TRUE(sawNegative) << "the data does not exercise Relu";

  auto missing = readTensorProtoFile("/nonexistent.pb");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("/nonexistent.pb: cannot read file"),
            std::string::npos);
}

} // namespace
} // namespace kiln
