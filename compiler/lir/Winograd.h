//===- Winograd.h - Winograd F(2x2, 3x3) convolution layout ----*- C++ -*-===//
//
// A 3x3 stride-1 convolution computes every 2x2 block ("tile") of output
// pixels from the 4x4 input patch under it as Y = A^T [(G g G^T) . (B^T d B)] A:
// 16 multiplications per tile, input and output channel instead of the 36 of
// the direct form. The weights' transform U = G g G^T is done here, at
// compile time (Packing::Winograd); the input's (V = B^T d B) and the
// output's in the kernel (codegen/kernels/WinogradConvKernel.cpp), one block
// of tile rows at a time, around 16 matrix products per block that run on
// the same register tiles as the direct convolution.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_WINOGRAD_H
#define KILN_LIR_WINOGRAD_H

#include "compiler/lir/LIR.h"

namespace kiln {
namespace lir {

/// Elements of the 4x4 transformed tile: the number of matrix products.
constexpr int64_t kWinogradPoints = 16;

/// Whether `conv` runs as Winograd F(2x2, 3x3): f32, one group, 3x3, stride
/// and dilation 1, and enough input channels and output pixels that the
/// transforms cost little next to the products they save (the first layer of
/// an image network, with its 3 channels, stays direct).
bool isWinogradConv(const Node &conv);

/// Where a Winograd convolution keeps its data in its temp, in floats from
/// the temp's start: the padded input of one image (PaddedInput with two
/// column phases, so tiles' columns 2t + j are consecutive floats), then the
/// transformed input V [16][C][blockTiles] and the products M
/// [16][OC][blockTiles] of one block of tile rows. The 16 points of V and M
/// are a cache line further apart than their size: the transforms touch all
/// 16 at once, and at power-of-two distances (16 KB for 64 channels of 64
/// tiles) they would all fall in one L1 set.
struct WinogradLayout {
  int64_t tilesH, tilesW;  ///< tiles covering the output
  int64_t blockRows;       ///< tile rows per block
  int64_t blockTiles;      ///< blockRows * tilesW, rounded up to whole vectors
  int64_t vPointStride, mPointStride; ///< floats between points of V, of M
  PaddedInput padded;
  int64_t vOffset, mOffset, size; ///< floats
  uint64_t bytes() const { return size * sizeof(float); }
};

WinogradLayout winogradLayout(const Node &conv);

/// Bytes of Packing::Winograd weights of a [OC][C][3][3] tensor.
uint64_t winogradWeightsBytes(llvm::ArrayRef<int64_t> shape);

/// Writes U = G g G^T of every (output, input channel) pair as [16][C][OC].
void packWinogradWeights(const Tensor &w, uint8_t *dst);

} // namespace lir
} // namespace kiln

#endif
