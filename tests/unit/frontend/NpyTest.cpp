// .npy reading (compiler/frontend/Npy.h) against files numpy.save wrote
// (npy/make_npy.py): every dtype kiln has, and the errors for what it
// cannot read.

#include "compiler/frontend/Npy.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

std::string npyPath(llvm::StringRef name) {
  return ("tests/unit/frontend/npy/" + name + ".npy").str();
}

Tensor read(llvm::StringRef name) {
  auto t = readNpyFile(npyPath(name));
  if (!t) {
    ADD_FAILURE() << llvm::toString(t.takeError());
    return Tensor();
  }
  return std::move(*t);
}

std::string readError(llvm::StringRef name) {
  auto t = readNpyFile(npyPath(name));
  return t ? "" : llvm::toString(t.takeError());
}

TEST(Npy, ReadsEveryDTypeNumpyWrites) {
  Tensor shape = read("shape_i64");
  EXPECT_EQ(shape.getType(), TensorType(DType::I64, {2}));
  EXPECT_EQ(shape.getAsInt(0), 4);
  EXPECT_EQ(shape.getAsInt(1), 3);

  Tensor scalar = read("scalar_i32");
  EXPECT_EQ(scalar.getType(), TensorType(DType::I32, {}));
  EXPECT_EQ(scalar.getAsInt(0), -7);

  Tensor image = read("image_u8");
  EXPECT_EQ(image.getType(), TensorType(DType::U8, {2, 3}));
  for (int64_t k = 0; k < 6; ++k)
    EXPECT_EQ(image.getAsInt(k), k);

  Tensor mask = read("mask_bool");
  EXPECT_EQ(mask.getType(), TensorType(DType::Bool, {3}));
  EXPECT_EQ(mask.getAsInt(0), 1);
  EXPECT_EQ(mask.getAsInt(1), 0);
  EXPECT_EQ(mask.getAsInt(2), 1);

  Tensor half = read("half_f16");
  EXPECT_EQ(half.getType(), TensorType(DType::F16, {2}));
  EXPECT_EQ(half.data<uint16_t>()[0], 0x3e00); // 1.5
  EXPECT_EQ(half.data<uint16_t>()[1], 0xc000); // -2.0

  Tensor codes = read("codes_i8");
  EXPECT_EQ(codes.getType(), TensorType(DType::I8, {2}));
  EXPECT_EQ(codes.getAsInt(0), -128);
  EXPECT_EQ(codes.getAsInt(1), 127);

  Tensor values = read("values_f64");
  EXPECT_EQ(values.getType(), TensorType(DType::F64, {2, 1}));
  EXPECT_EQ(values.getAsDouble(0), 0.25);
  EXPECT_EQ(values.getAsDouble(1), -1e300);
}

TEST(Npy, ErrorsNameTheFileAndTheProblem) {
  std::string bigEndian = readError("big_endian_i32");
  EXPECT_NE(bigEndian.find("big_endian_i32.npy: dtype '>i4'"), std::string::npos)
      << bigEndian;
  std::string complex = readError("complex_c8");
  EXPECT_NE(complex.find("complex_c8.npy: dtype '<c8'"), std::string::npos)
      << complex;
  std::string fortran = readError("fortran_f4");
  EXPECT_NE(fortran.find("fortran_f4.npy: Fortran-ordered"), std::string::npos)
      << fortran;
  EXPECT_NE(readError("missing").find("missing.npy"), std::string::npos);
  auto truncated = parseNpy("\x93NUMPY\x01", "cut.npy");
  ASSERT_FALSE(truncated);
  EXPECT_NE(llvm::toString(truncated.takeError()).find("cut.npy: not a .npy file"),
            std::string::npos);
}

} // namespace
} // namespace kiln
