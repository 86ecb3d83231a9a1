//===- Winograd.h - Winograd convolution layout -----------------*- C++ -*-===//
//
// A stride-1 convolution computes every mh x mw block ("tile") of output
// pixels from the nh x nw input patch under it (n = m + r - 1 per axis, for
// a kernel of rh x rw) as Y = A^T [(G g G^T) . (B^T d B)] A: nh nw
// multiplications per tile, input and output channel, instead of the
// mh mw rh rw of the direct form. kiln has, for 3x3 kernels, F(2x2, 3x3)
// (16 against 36: 2.25x fewer) and F(4x4, 3x3) (36 against 144: 4x fewer,
// for larger transforms, 36/9 of the weights and a little less accuracy),
// and for kernels of one row or column of r taps (inception's 1x7 and 7x1)
// F(1x2, 1xr) and F(2x1, rx1) (for r = 7, 8 against 14: 1.75x fewer; as
// accurate as F(4x4, 3x3)). The weights' transform U = G g G^T is done here,
// at compile time (by the kernel, first, for weights computed at run time);
// the input's (V = B^T d B) and the output's in the kernel
// (codegen/kernels/WinogradConvKernel.cpp), one block of tile rows at a time,
// around nh nw matrix products per block that run on the same register
// tiles as the direct convolution.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_WINOGRAD_H
#define KILN_LIR_WINOGRAD_H

#include "compiler/lir/LIR.h"

#include <vector>

namespace kiln {
namespace lir {

/// The tile (KernelStrategy.h) of output size m along each axis of more
/// than one tap of weights `weightsShape` ([OC][C][KH][KW]): m x m for 3x3,
/// 1 x m for 1 x r.
WinogradTile winogradTileFor(llvm::ArrayRef<int64_t> weightsShape, int64_t m);

/// Whether `conv` can run as Winograd: f32, one group, 3x3 or one row or
/// column of 5 to 7 taps, stride and dilation 1, and enough input channels
/// and output pixels that the transforms cost little next to the products
/// they save (the first layer of an image network, with its 3 channels,
/// stays direct).
bool isWinogradConv(const Node &conv);

/// The output tile size m for a Winograd `conv` on a target with
/// `vectorLanes` f32 lanes: for 3x3, 2 or 4 by the estimated cycles of each
/// (winogradCost), and always 2 on scalar cores (F(4x4) there would cost
/// 36/16 of F(2x2)'s weights in flash for transforms that no vector hides);
/// for a row or column of taps, 2 (F(4, 7) is 4x less accurate).
int64_t chooseWinogradTile(const Node &conv, unsigned vectorLanes);

/// Estimated cycles of a 3x3 `conv` as F(m x m, 3x3) with `vectorLanes`
/// lanes: the products at two FMAs a cycle, the transforms at two
/// operations a cycle (counted per vector the kernel emits, so narrow images
/// pay for their partly empty vectors), the padded copy, and weights that no
/// longer fit in L2 streamed from memory once per block.
double winogradCost(const Node &conv, int64_t m, unsigned vectorLanes);

/// The packing of Winograd weights of output tile m (`line`: of a kernel of
/// one row or column), and back (0 for a non-Winograd one).
Packing winogradPacking(int64_t m, bool line);
int64_t winogradTileOf(Packing p);

/// Where a Winograd convolution keeps its data in its temp, in floats from
/// the temp's start, for one block of tile rows at a time:
///  - one input channel of the block, cut into patches: per point (i, j) of
///    the nh x nw patch a run of blockTiles floats holding, for block tile
///    q = r * tilesW + t, padded pixel (mh (r0 + r) + i, mw t + j) (r0 the
///    block's first tile row). A point of consecutive tiles, also across
///    tile rows, is at consecutive floats, so that a vector of the input
///    transform covers several short tile rows; the cut is remade per
///    channel and stays in L1;
///  - the transformed input V [points][C][blockTiles] and the products M
///    [points][OC][blockTiles] of the block, its tiles consecutive across
///    its rows.
/// The points of V and M are a cache line further apart than their size: the
/// transforms touch all of them at once, and at power-of-two distances (16 KB
/// for 64 channels of 64 tiles) they would all fall in one L1 set.
struct WinogradLayout {
  WinogradTile tile;
  int64_t points;          ///< of a patch (tile.points())
  int64_t tilesH, tilesW;  ///< tiles covering the output
  int64_t blockRows;       ///< tile rows per block
  int64_t blockTiles;      ///< blockRows * tilesW, rounded up to whole vectors
  int64_t vPointStride, mPointStride; ///< floats between points of V, of M
  int64_t vOffset, mOffset, size;     ///< floats; the cut is at 0
  uint64_t bytes() const { return size * sizeof(float); }
};

WinogradLayout winogradLayout(const Node &conv, const WinogradTile &tile);

/// Bytes of the Winograd weights of output tile m of a [OC][C][KH][KW]
/// tensor.
uint64_t winogradWeightsBytes(llvm::ArrayRef<int64_t> shape, int64_t m);

/// Bytes at the start of the temp of Winograd `conv` of strategy `s` that
/// hold its U when it transforms its weights at run time
/// (KernelStrategy::transformsWeights), in whole cache lines; else 0. The
/// winogradLayout follows them.
uint64_t runTimeWinogradWeightsBytes(const Node &conv, const KernelStrategy &s);

/// The matrix G (n x r) of the weights' transform along an axis of `r` taps
/// and output tile m, row-major. For 3x3 it matches the kernel's factored
/// B^T and A^T; else it is ToomCook's.
std::vector<double> winogradG(int64_t m, int64_t r);

/// Writes U = G g G^T of every (output, input channel) pair as
/// [points][C][OC].
void packWinogradWeights(const Tensor &w, int64_t m, uint8_t *dst);

} // namespace lir
} // namespace kiln

#endif
