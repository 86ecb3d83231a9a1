#include "tests/common/ReferenceCheck.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln {

Tensor readRawTensor(const std::string &path, const TensorType &type) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(static_cast<bool>(buf)) << path;
  Tensor t(type);
  if (buf && (*buf)->getBufferSize() == t.sizeInBytes())
    std::memcpy(t.rawData(), (*buf)->getBufferStart(), t.sizeInBytes());
  else
    ADD_FAILURE() << path << ": expected " << t.sizeInBytes() << " bytes";
  return t;
}

void expectMatchesReference(const Tensor &got, const Tensor &ref) {
  ASSERT_EQ(got.getType(), ref.getType());
  if (ref.getDType() == DType::I8) {
    int maxErr = 0;
    int64_t offByMore = 0;
    for (int64_t i = 0; i < ref.numElements(); ++i) {
      int err = std::abs(int(got.data<int8_t>()[i]) - int(ref.data<int8_t>()[i]));
      maxErr = std::max(maxErr, err);
      offByMore += err > 1;
    }
    EXPECT_LE(maxErr, 2);
    EXPECT_LE(offByMore * 100, ref.numElements());
    std::printf("  max error %d steps, %lld of %lld off by more than 1\n", maxErr,
                (long long)offByMore, (long long)ref.numElements());
    return;
  }
  ASSERT_EQ(ref.getDType(), DType::F32);
  double maxRef = 0, maxErr = 0;
  for (int64_t i = 0; i < ref.numElements(); ++i) {
    maxRef = std::max(maxRef, std::fabs(double(ref.data<float>()[i])));
    double err = std::fabs(double(got.data<float>()[i]) - ref.data<float>()[i]);
    maxErr = std::isnan(err) ? INFINITY : std::max(maxErr, err);
  }
  EXPECT_LE(maxErr, 1e-4 * std::max(1.0, maxRef));
  std::printf("  max abs error %.3g (max |ref| %.3g)\n", maxErr, maxRef);
}

} // namespace kiln
