//===- RegisterTiles.h - Register tiles of the f32 GEMM kernels -*- C++ -*-===//
//
// The f32 kernels shaped as matrix products keep a tile of rows x vecs
// vector accumulators in registers through their K loop. Which tile, and how
// the kernel walks its tiles, is part of the kernel strategy: selectKernels
// asks these cost models (per-step FMA, latency and load cycles, lanes
// wasted at the edges, the epilogue) for the cheapest tile on the target's
// vector lanes and registers (LIROptions) and records it
// (KernelStrategy::registerTile). One emitter then yields a 14x2 tile of
// 16-lane vectors on AVX-512, a 6x4 tile of 4-lane vectors on NEON and a
// 2x2 tile of scalars on a Cortex-M.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_REGISTERTILES_H
#define KILN_LIR_REGISTERTILES_H

#include "compiler/lir/LIR.h"

namespace kiln {
namespace lir {

/// Input channels per iteration of a Conv tile's K loop, unrolled; a K block
/// over packed panels is at least that many steps.
constexpr int64_t kConvUnrolledChannels = 4;

/// The register tile of Conv `conv` with strategy `strategy` (Direct,
/// Pointwise or Grouped), which reads its input from the padded copy
/// `layout` (paddedInput), or in place when null.
RegisterTile convRegisterTile(const Node &conv, const KernelStrategy &strategy,
                              const PaddedInput *layout, const LIROptions &opts);

/// The tile of the products of Conv `conv` as Winograd of tile `tile`: rows
/// of output channels, vectors of a block's transform tiles.
RegisterTile winogradRegisterTile(const Node &conv, const WinogradTile &tile,
                                  const LIROptions &opts);

/// The tile of f32 MatMul `matmul`: rows of A, vectors of B's columns; none
/// (no rows) where its shapes disagree, which its kernel reports.
RegisterTile matMulRegisterTile(const Node &matmul, const LIROptions &opts);

} // namespace lir
} // namespace kiln

#endif
