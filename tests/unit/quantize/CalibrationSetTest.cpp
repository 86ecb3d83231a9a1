// The calibration directory's rules (CalibrationSet.h): which file feeds
// which input, one sample or a batch per file, and the errors that name the
// file or input at fault. The .npy files are written here byte by byte as
// numpy.save writes them (format 1.0).

#include "compiler/quantize/CalibrationSet.h"
#include "tests/common/NpyHeader.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

/// A .npy file of `dataBytes` zero bytes but the first float, `first`.
std::string npyBytes(llvm::StringRef descr, std::vector<int64_t> shape,
                     size_t dataBytes, float first = 0) {
  std::string data(dataBytes, '\0');
  if (dataBytes >= 4)
    memcpy(data.data(), &first, 4);
  return test::npyHeader(descr.str(), shape) + data;
}

class CalibrationSetTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("calibration", dir));
    image = g.addInput("image:0", TensorType(DType::F32, {1, 2, 3}));
    mask = g.addInput("mask", TensorType(DType::F32, {1, 4}));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  void write(llvm::StringRef name, const std::string &bytes) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  }

  /// The error loading the directory gives, or "" when it loads.
  std::string loadError() {
    auto s = loadCalibrationSet(dir, {image, mask});
    return s ? "" : llvm::toString(s.takeError());
  }

  llvm::SmallString<128> dir;
  Graph g;
  Value *image, *mask;
};

TEST_F(CalibrationSetTest, PairsSamplesOfEachInputInNameOrder) {
  // image:0 is written image_0: a batch of two, then one sample.
  write("image_0.000.npy", npyBytes("<f4", {2, 2, 3}, 48, 1.0f));
  write("image_0.001.npy", npyBytes("<f4", {1, 2, 3}, 24, 3.0f));
  write("mask.a.npy", npyBytes("<f4", {1, 4}, 16, 10.0f));
  write("mask.b.npy", npyBytes("<f4", {1, 4}, 16, 20.0f));
  write("mask.c.npy", npyBytes("<f4", {1, 4}, 16, 30.0f));
  write("notes.txt", "not a sample");
  auto samples = loadCalibrationSet(dir, {image, mask});
  ASSERT_TRUE(bool(samples)) << llvm::toString(samples.takeError());
  ASSERT_EQ(samples->size(), 3u);
  float firstImage[] = {1, 0, 3}, firstMask[] = {10, 20, 30};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ((*samples)[k][0].getType(), image->getType());
    EXPECT_EQ((*samples)[k][0].values<float>()[0], firstImage[k]);
    EXPECT_EQ((*samples)[k][1].values<float>()[0], firstMask[k]);
  }
}

TEST_F(CalibrationSetTest, ErrorsNameTheFileOrInput) {
  EXPECT_NE(loadError().find("no samples for input 'image:0'"), std::string::npos)
      << loadError();
  write("mask.npy", npyBytes("<f4", {2, 4}, 32));
  write("image_0.npy", npyBytes("<f4", {2, 3}, 24));
  EXPECT_NE(loadError().find("image_0.npy: shape [2,3] does not fit input 'image:0'"),
            std::string::npos)
      << loadError();
  write("image_0.npy", npyBytes("<f8", {1, 2, 3}, 48));
  EXPECT_NE(loadError().find("image_0.npy: dtype f64; calibration inputs are float32"), std::string::npos)
      << loadError();
  write("image_0.npy", npyBytes("<f4", {1, 2, 3}, 20));
  EXPECT_NE(loadError().find("image_0.npy: 20 data bytes"), std::string::npos)
      << loadError();
  write("image_0.npy", npyBytes("<f4", {1, 2, 3}, 24));
  EXPECT_NE(loadError().find("input 'mask' has 2 samples, input 'image:0' has 1"),
            std::string::npos)
      << loadError();
  write("image_0.1.npy", npyBytes("<f4", {1, 2, 3}, 24));
  EXPECT_EQ(loadError(), "");
  write("label.npy", npyBytes("<f4", {1}, 4));
  EXPECT_NE(loadError().find("label.npy: names no graph input"), std::string::npos)
      << loadError();
}

TEST_F(CalibrationSetTest, NeedsTwoSamples) {
  write("image_0.npy", npyBytes("<f4", {1, 2, 3}, 24));
  write("mask.npy", npyBytes("<f4", {1, 4}, 16));
  EXPECT_NE(loadError().find("has one sample"), std::string::npos) << loadError();
}

TEST(HeldOut, EveryFifthOrTheLast) {
  std::vector<size_t> held;
  for (size_t k = 0; k < 12; ++k)
    if (isHeldOut(k, 12))
      held.push_back(k);
  EXPECT_EQ(held, (std::vector<size_t>{4, 9}));
  EXPECT_TRUE(isHeldOut(2, 3));
  EXPECT_FALSE(isHeldOut(1, 3));
}

} // namespace
} // namespace kiln
