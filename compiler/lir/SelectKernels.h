//===- SelectKernels.h - Choosing each instruction's kernel ----*- C++ -*-===//
//
// The one place that decides which kernel runs each Conv, MatMul and pooling
// node (KernelStrategy) with its tiles, for the target's vectors and the
// options in LIROptions, and from that how their weights are packed.
// generateLIR runs it before it binds any buffer and records the strategies
// on the instructions.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_SELECTKERNELS_H
#define KILN_LIR_SELECTKERNELS_H

#include "compiler/lir/LIR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace kiln {
namespace lir {

/// How a weights constant is stored, because of the strategies reading it.
struct WeightsPacking {
  Packing packing = Packing::None;
  int64_t groups = 1; ///< the Conv's group count, for ConvTapMajor
  int64_t strip = 0;  ///< columns per strip, for MatMulStrips
};

struct KernelSelection {
  /// Conv, MatMul and pooling nodes, and the int8 ones; every other node
  /// runs its Default kernel.
  llvm::DenseMap<const Node *, KernelStrategy> strategies;
  /// Constants that the chosen kernels read packed.
  llvm::DenseMap<const Value *, WeightsPacking> weights;

  KernelStrategy strategyOf(const Node &n) const { return strategies.lookup(&n); }
  WeightsPacking packingOf(const Value &v) const { return weights.lookup(&v); }
};

/// Chooses the kernel of every Conv, MatMul and pooling node of `g`:
///  - Winograd, when every Conv sharing the weights qualifies
///    (isWinogradConv) and opts.winograd; its tile is opts.winogradTile, or
///    chooseWinogradTile's, the smallest among the Convs sharing the weights;
///  - otherwise direct, 1x1 unpadded ones as Pointwise GEMMs, weights
///    tap-major when no other reader sees them; grouped ones as Grouped;
///  - depthwise with a channel block on the lanes when rows are too narrow for
///    vectors and the target has them (opts.vectorLanes > 1), else over rows;
///  - plane pooling when its windows allow (poolStrategy in SelectKernels.cpp),
///    separable where that reads fewer taps, else generic;
///  - for the f32 GEMM-shaped kernels (direct, grouped and 1x1 Convs,
///    Winograd's products, MatMul), the register tile (RegisterTiles.h);
///  - a MatMul's constant B of 256 columns or more that no other node reads
///    in strips of the tile's columns (Packing::MatMulStrips);
///  - for int8 ops, TFLite's integer kernels: GEMM blocks and multiply-add
///    instructions for the target (LIROptions::int8Dot; SelectInt8Kernels.h).
KernelSelection selectKernels(const Graph &g, const LIROptions &opts);

/// Whether constant `w` may be stored in a kernel's layout: no graph output
/// shows its bytes, and every node reading it reads it packed (`readsPacked`),
/// so that packing cannot surprise another reader.
bool packableConstant(const Graph &g, const Value *w,
                      llvm::function_ref<bool(const Node &)> readsPacked);

/// Whether `n` is a 2-D 1x1 Conv of unit stride and no padding: an int8
/// GEMM block's columns are then runs of the input itself.
bool isUnitPointwiseConv(const Node &n);

} // namespace lir
} // namespace kiln

#endif
