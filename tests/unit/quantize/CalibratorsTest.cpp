// The percentile and entropy calibrators on stored value sets, against what
// make_calibrator_cases.py computed with numpy from the definitions in
// Calibrators.h; and asymmetricInt8 on ranges whose parameters are known.
//
// usage: calibrators_test CASES.json

#include "compiler/quantize/Calibrators.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

std::string casesPath;

struct Case {
  std::string name;
  std::vector<float> values;
  const llvm::json::Object *json;
};

std::vector<Case> loadCases(llvm::json::Value &root) {
  std::vector<Case> cases;
  for (llvm::json::Value &c : *root.getAsArray()) {
    const llvm::json::Object *o = c.getAsObject();
    Case k{o->getString("name")->str(), {}, o};
    for (const llvm::json::Value &v : *o->getArray("values"))
      k.values.push_back(float(*v.getAsNumber()));
    cases.push_back(std::move(k));
  }
  return cases;
}

llvm::json::Value readCases() {
  auto buffer = llvm::MemoryBuffer::getFile(casesPath);
  EXPECT_TRUE(bool(buffer)) << casesPath;
  auto parsed = llvm::json::parse((*buffer)->getBuffer());
  EXPECT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  return std::move(*parsed);
}

std::pair<float, float> minMax(llvm::ArrayRef<float> v) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

TEST(Calibrators, PercentileMatchesNumpy) {
  llvm::json::Value root = readCases();
  for (const Case &c : loadCases(root)) {
    auto [lo, hi] = minMax(c.values);
    Histogram h(lo, hi);
    h.add(c.values);
    for (const llvm::json::Value &p : *c.json->getArray("percentile")) {
      const llvm::json::Object *o = p.getAsObject();
      double percentile = *o->getNumber("p");
      const llvm::json::Array &want = *o->getArray("range");
      ValueRange got = percentileRange(h, percentile);
      EXPECT_FLOAT_EQ(got.min, *want[0].getAsNumber()) << c.name << " P" << percentile;
      EXPECT_FLOAT_EQ(got.max, *want[1].getAsNumber()) << c.name << " P" << percentile;
    }
  }
}

TEST(Calibrators, EntropyMatchesNumpy) {
  llvm::json::Value root = readCases();
  for (const Case &c : loadCases(root)) {
    auto [lo, hi] = minMax(c.values);
    Histogram h(0, std::max(std::fabs(lo), std::fabs(hi)));
    h.add(c.values, /*magnitudes=*/true);
    EXPECT_FLOAT_EQ(entropyThreshold(h), *c.json->getNumber("entropy_threshold"))
        << c.name;
  }
}

TEST(Calibrators, AsymmetricInt8CoversRangeAndZero) {
  // [-1, 1.55]: 2.55 / 255 = 0.01, zero at -128 + 100.
  QuantParams q = asymmetricInt8({-1.0f, 1.55f});
  EXPECT_FLOAT_EQ(q.scales[0], 0.01f);
  EXPECT_EQ(q.zeroPoints[0], -28);
  // A range above zero is widened down to it: zero point -128.
  q = asymmetricInt8({0.5f, 2.55f});
  EXPECT_FLOAT_EQ(q.scales[0], 0.01f);
  EXPECT_EQ(q.zeroPoints[0], -128);
  // An all-zero tensor: scale 1, zero point -128 (0 is exact).
  q = asymmetricInt8({0.0f, 0.0f});
  EXPECT_FLOAT_EQ(q.scales[0], 1.0f);
  EXPECT_EQ(q.zeroPoints[0], -128);
}

TEST(Calibrators, Names) {
  for (llvm::StringRef n : {"minmax", "percentile", "entropy"})
    EXPECT_EQ(calibratorName(*parseCalibratorKind(n)), n);
  EXPECT_FALSE(parseCalibratorKind("kl"));
}

} // namespace
} // namespace kiln

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    fprintf(stderr, "usage: %s CASES.json\n", argv[0]);
    return 2;
  }
  kiln::casesPath = argv[1];
  return RUN_ALL_TESTS();
}
