//===- Winograd.cpp - Winograd F(2x2, 3x3) convolution layout -------------===//

#include "compiler/lir/Winograd.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace kiln {
namespace lir {

namespace {
/// Below these the direct kernel is faster: with few input channels the
/// transforms outweigh the products they save, and on images of a few
/// pixels the transformed weights, 16/9 of the originals, are what the time
/// goes to (resnet18's 7x7 layers with 512 channels: 1.6x slower as
/// Winograd on Zen 5; 8x8 with 64 channels is 1.3x faster).
constexpr int64_t kMinChannels = 8;
constexpr int64_t kMinOutputPixels = 64;

/// Tiles a block aims at: a few vectors of the widest registers for the
/// products, few enough that V and M of a block stay in L2.
constexpr int64_t kBlockTiles = 48;

} // namespace

bool isWinogradConv(const Node &conv) {
  if (!conv.is(OpKind::Conv) || conv.getInt("group") != 1)
    return false;
  const TensorType &x = conv.getInput(0)->getType();
  const TensorType &w = conv.getInput(1)->getType();
  const TensorType &y = conv.getOutput()->getType();
  if (x.dtype != DType::F32 || w.dtype != DType::F32 || x.rank() != 4 || w.rank() != 4)
    return false;
  for (size_t i = 0; i < 2; ++i)
    if (conv.getIntAt("strides", i, 1) != 1 || conv.getIntAt("dilations", i, 1) != 1)
      return false;
  return w.shape[2] == 3 && w.shape[3] == 3 && x.shape[1] >= kMinChannels &&
         y.shape[2] * y.shape[3] >= kMinOutputPixels;
}

WinogradLayout winogradLayout(const Node &conv) {
  const TensorType &x = conv.getInput(0)->getType();
  const TensorType &y = conv.getOutput()->getType();
  int64_t C = x.shape[1], OC = y.shape[1];
  WinogradLayout l;
  l.tilesH = llvm::divideCeil(y.shape[2], 2);
  l.tilesW = llvm::divideCeil(y.shape[3], 2);
  l.blockRows = std::clamp<int64_t>(llvm::divideCeil(kBlockTiles, l.tilesW), 1, l.tilesH);
  l.blockTiles = llvm::alignTo(l.blockRows * l.tilesW, kConvPackBlock);
  // Tile (r, t) reads padded rows 2r..2r+3 and columns 2t..2t+3: columns of
  // phase j % 2 at position t + j / 2. The output is 2 smaller than the
  // padded input, so these extents also hold the input and its pads.
  l.padded = PaddedInput{C, 2 * l.tilesH + 2, 2, l.tilesW + 1};
  int64_t padded = C * l.padded.planeStride();
  l.vOffset = llvm::alignTo(padded, kConvPackBlock);
  l.vPointStride = C * l.blockTiles + kConvPackBlock;
  l.mPointStride = OC * l.blockTiles + kConvPackBlock;
  l.mOffset = l.vOffset + kWinogradPoints * l.vPointStride;
  l.size = l.mOffset + kWinogradPoints * l.mPointStride;
  return l;
}

uint64_t winogradWeightsBytes(llvm::ArrayRef<int64_t> shape) {
  return kWinogradPoints * shape[0] * shape[1] * sizeof(float);
}

void packWinogradWeights(const Tensor &w, uint8_t *dst) {
  llvm::ArrayRef<int64_t> shape = w.getType().shape;
  int64_t OC = shape[0], C = shape[1];
  const float *src = reinterpret_cast<const float *>(w.raw().data());
  float *out = reinterpret_cast<float *>(dst);
  static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t c = 0; c < C; ++c) {
      const float *g = src + (oc * C + c) * 9;
      double gg[4][3]; // G g
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
          gg[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          double u = gg[i][0] * G[j][0] + gg[i][1] * G[j][1] + gg[i][2] * G[j][2];
          out[((i * 4 + j) * C + c) * OC + oc] = static_cast<float>(u);
        }
    }
}

} // namespace lir
} // namespace kiln
