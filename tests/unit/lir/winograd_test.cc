// Winograd: ToomCook's matrices and the packed weights against the direct
// convolution of a patch, and which convolutions generateLIR gives the
// Winograd kernel.

#include "compiler/lir/LIR.h"
#include "compiler/lir/ToomCook.h"
#include "compiler/lir/Winograd.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>
#include <vector>

namespace kiln {
namespace {

/// Checks U = G g G^T of F(m x m, 3x3) packed by packWinogradWeights
/// against the direct convolution of a random n x n patch, through B^T and
/// A^T written out in full (independently of the kernel's factored form).
template <int M>
void checkPackedWeights(const double (&BT)[M + 2][M + 2], const double (&AT)[M][M + 2],
                        double tolerance) {
  constexpr int N = M + 2;
  // Two output and three input channels, so the [points][C][OC] order
  // matters.
  const int64_t OC = 2, C = 3;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> g(OC * C * 9), d(C * N * N);
  for (float &v : g)
    v = dist(rng);
  for (float &v : d)
    v = dist(rng);
  Tensor w = Tensor::fromValues<float>(DType::F32, {OC, C, 3, 3}, g);
  std::vector<float> u(lir::winogradWeightsBytes(w.getShape(), M) / sizeof(float));
  ASSERT_EQ(u.size(), size_t(N * N * OC * C));
  lir::packWinogradWeights(w, M, reinterpret_cast<uint8_t *>(u.data()));

  for (int64_t oc = 0; oc < OC; ++oc) {
    double m[N][N] = {};
    for (int64_t c = 0; c < C; ++c)
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
          double v = 0;
          for (int a = 0; a < N; ++a)
            for (int b = 0; b < N; ++b)
              v += BT[i][a] * d[(c * N + a) * N + b] * BT[j][b];
          m[i][j] += u[((i * N + j) * C + c) * OC + oc] * v;
        }
    for (int y = 0; y < M; ++y)
      for (int x = 0; x < M; ++x) {
        double winograd = 0, direct = 0;
        for (int i = 0; i < N; ++i)
          for (int j = 0; j < N; ++j)
            winograd += AT[y][i] * m[i][j] * AT[x][j];
        for (int64_t c = 0; c < C; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw)
              direct += g[(oc * C + c) * 9 + kh * 3 + kw] * d[(c * N + y + kh) * N + x + kw];
        EXPECT_NEAR(winograd, direct, tolerance)
            << "F(" << M << "x" << M << ") output channel " << oc << " pixel " << y << x;
      }
  }
}

TEST(Winograd, PackedWeightsGiveTheDirectConvolutionOfAPatch2x2) {
  const double BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  const double AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
  checkPackedWeights<2>(BT, AT, 1e-5);
}

TEST(Winograd, PackedWeightsGiveTheDirectConvolutionOfAPatch4x4) {
  const double BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                           {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  const double AT[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  checkPackedWeights<4>(BT, AT, 1e-5);
}

/// y = A^T [(G g) . (B^T d)] of F(m, r) against the correlation
/// y_i = sum_k g_k d_{i+k}, for random g and d.
void checkToomCook(int64_t m, int64_t r) {
  lir::ToomCook t = lir::toomCook(m, r);
  ASSERT_EQ(t.n, m + r - 1);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> g(r), d(t.n), product(t.n);
  for (double &v : g)
    v = dist(rng);
  for (double &v : d)
    v = dist(rng);
  for (int64_t i = 0; i < t.n; ++i) {
    double gg = 0, dd = 0;
    for (int64_t k = 0; k < r; ++k)
      gg += t.gAt(i, k) * g[k];
    for (int64_t k = 0; k < t.n; ++k)
      dd += t.btAt(i, k) * d[k];
    product[i] = gg * dd;
  }
  for (int64_t i = 0; i < m; ++i) {
    double winograd = 0, direct = 0;
    for (int64_t k = 0; k < t.n; ++k)
      winograd += t.atAt(i, k) * product[k];
    for (int64_t k = 0; k < r; ++k)
      direct += g[k] * d[i + k];
    EXPECT_NEAR(winograd, direct, 1e-12) << "F(" << m << ", " << r << ") output " << i;
  }
}

TEST(ToomCook, GivesTheCorrelation) {
  for (int64_t r : {1, 2, 3, 5, 7})
    for (int64_t m : {1, 2, 3, 4})
      checkToomCook(m, r);
}

/// F(1x2, 1x7) and F(2x1, 7x1) weights: the outputs of a 1 x 8 (8 x 1)
/// patch, through ToomCook's B^T and A^T, against the direct correlation.
TEST(Winograd, LineWeightsGiveTheDirectConvolutionOfAPatch) {
  for (bool rows : {false, true}) {
    const int64_t OC = 2, C = 3, r = 7, n = 8;
    Shape shape = rows ? Shape{OC, C, r, 1} : Shape{OC, C, 1, r};
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> g(OC * C * r), d(C * n);
    for (float &v : g)
      v = dist(rng);
    for (float &v : d)
      v = dist(rng);
    Tensor w = Tensor::fromValues<float>(DType::F32, shape, g);
    std::vector<float> u(lir::winogradWeightsBytes(w.getShape(), 2) / sizeof(float));
    ASSERT_EQ(u.size(), size_t(n * OC * C));
    lir::packWinogradWeights(w, 2, reinterpret_cast<uint8_t *>(u.data()));
    lir::ToomCook t = lir::toomCook(2, r);
    for (int64_t oc = 0; oc < OC; ++oc) {
      std::vector<double> m(n);
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < n; ++i) {
          double v = 0;
          for (int64_t k = 0; k < n; ++k)
            v += t.btAt(i, k) * d[c * n + k];
          m[i] += u[(i * C + c) * OC + oc] * v;
        }
      for (int64_t y = 0; y < 2; ++y) {
        double winograd = 0, direct = 0;
        for (int64_t i = 0; i < n; ++i)
          winograd += t.atAt(y, i) * m[i];
        for (int64_t c = 0; c < C; ++c)
          for (int64_t k = 0; k < r; ++k)
            direct += g[(oc * C + c) * r + k] * d[c * n + y + k];
        EXPECT_NEAR(winograd, direct, 1e-4) << (rows ? "7x1" : "1x7") << " output " << y;
      }
    }
  }
}

/// The packing generateLIR gives the weights of one Conv of `channels`
/// channels to `filters` on a size x size image, of a kernelH x kernelW
/// kernel padded to keep the size.
lir::Packing weightsPacking(int64_t channels, int64_t size, int64_t kernelH, int64_t kernelW,
                            int64_t stride, unsigned lanes = 16, int64_t filters = 16) {
  Graph g("conv");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, channels, size, size}));
  Value *w = g.addConstant(
      "w", Tensor(TensorType(DType::F32, {filters, channels, kernelH, kernelW})));
  int64_t ph = kernelH / 2, pw = kernelW / 2;
  auto conv = g.addNode(OpKind::Conv, "conv", {x, w},
                        {{"strides", Attr::ofInts({stride, stride})},
                         {"pads", Attr::ofInts({ph, pw, ph, pw})}});
  EXPECT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
  g.addOutput("y", (*conv)->getOutput());
  lir::LIROptions opts;
  opts.vectorLanes = lanes;
  auto f = lir::generateLIR(g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  for (auto &b : f->buffers)
    if (b->region == lir::Region::Weights)
      return b->packing;
  return lir::Packing::None;
}

TEST(Winograd, ChosenFor3x3Stride1OnEnoughChannelsAndPixels) {
  EXPECT_NE(lir::winogradTileOf(weightsPacking(16, 12, 3, 3, 1)), 0);
  EXPECT_NE(lir::winogradTileOf(weightsPacking(16, 8, 3, 3, 1)), 0);
  EXPECT_EQ(weightsPacking(16, 7, 3, 3, 1), lir::Packing::ConvTapMajor);  // small image
  EXPECT_EQ(weightsPacking(3, 32, 3, 3, 1), lir::Packing::ConvTapMajor);  // few channels
  EXPECT_EQ(weightsPacking(16, 32, 3, 3, 2), lir::Packing::ConvTapMajor); // strided
  EXPECT_EQ(weightsPacking(16, 32, 5, 5, 1), lir::Packing::ConvTapMajor); // 5x5
}

TEST(Winograd, ChosenForOneRowOrColumnOf5To7Taps) {
  EXPECT_EQ(weightsPacking(16, 12, 1, 7, 1), lir::Packing::WinogradLine2);
  EXPECT_EQ(weightsPacking(16, 12, 7, 1, 1), lir::Packing::WinogradLine2);
  EXPECT_EQ(weightsPacking(16, 12, 1, 5, 1), lir::Packing::WinogradLine2);
  EXPECT_EQ(weightsPacking(16, 12, 7, 1, 1, 1), lir::Packing::WinogradLine2); // scalar
  EXPECT_EQ(weightsPacking(16, 12, 1, 3, 1), lir::Packing::ConvTapMajor);
  EXPECT_EQ(weightsPacking(16, 12, 1, 9, 1), lir::Packing::ConvTapMajor);
  EXPECT_EQ(weightsPacking(16, 12, 1, 7, 2), lir::Packing::ConvTapMajor); // strided
  EXPECT_EQ(weightsPacking(4, 12, 1, 7, 1), lir::Packing::ConvTapMajor);  // few channels
  EXPECT_EQ(weightsPacking(16, 7, 7, 1, 1), lir::Packing::ConvTapMajor);  // small image
}

TEST(Winograd, TileByCostWithVectorsAndAlways2x2OnScalarCores) {
  // resnet8_cifar's layers on AVX-512: F(4x4) on 32x32 and 16x16 images,
  // F(2x2) on 8x8 ones, whose 2x2 tiles of F(4x4) would fill a quarter of
  // the vectors of its products.
  EXPECT_EQ(weightsPacking(16, 32, 3, 3, 1), lir::Packing::Winograd4x4);
  EXPECT_EQ(weightsPacking(32, 16, 3, 3, 1), lir::Packing::Winograd4x4);
  EXPECT_EQ(weightsPacking(64, 8, 3, 3, 1), lir::Packing::Winograd2x2);
  for (int64_t size : {8, 16, 32, 64})
    EXPECT_EQ(weightsPacking(16, size, 3, 3, 1, 1), lir::Packing::Winograd2x2) << size;
}

TEST(Winograd, TileByCostWithWeightsPastTheL2) {
  // VGG's 64 -> 128 layer at 112x112: F(4x4)'s 1.18 MB of weights read by
  // 14 blocks, the later 13 from L3 (3.7 ms against F(2x2)'s 5.7 ms).
  EXPECT_EQ(weightsPacking(64, 112, 3, 3, 1, 16, 128), lir::Packing::Winograd4x4);
  // resnet18's 256 -> 256 layers at 14x14: one block, whose F(4x4) weights
  // (9.4 MB) come from memory (1.3 to 1.7 ms against F(2x2)'s 0.92 ms).
  EXPECT_EQ(weightsPacking(256, 14, 3, 3, 1, 16, 256), lir::Packing::Winograd2x2);
}

} // namespace
} // namespace kiln
