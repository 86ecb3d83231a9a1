//===- RegisterTile.h - Register-tiled rank-1 update loops -----*- C++ -*-===//
//
// The inner loop of kiln's GEMM-shaped kernels (convolution, matrix product):
// a tile of rows x vecs vector accumulators stays in registers while a K loop
// adds, per step, the outer product of `rows` broadcast scalars of A and
// `vecs` consecutive vectors of B. Which tensor plays A and which B differs
// per kernel (output channels on the lanes, or pixels on the lanes); the loop
// does not care. Tile shapes are part of each instruction's kernel strategy
// (lir/RegisterTiles.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_REGISTERTILE_H
#define KILN_CODEGEN_KERNELS_REGISTERTILE_H

#include "compiler/codegen/KernelBuilder.h"

#include <string>

namespace kiln {
namespace codegen {

struct TileShape {
  unsigned rows = 1, vecs = 1;
  unsigned lanes = 1;     ///< per vector
  unsigned lastValid = 1; ///< valid lanes of the last vector; the rest are
                          ///< neither loaded nor stored
  /// When > 0, the vectors come in groups of `period` (rows of an image
  /// narrower than the tile) and the last of each group has lastValid lanes.
  unsigned period = 0;

  unsigned valid(unsigned j) const {
    bool last = period ? j % period == period - 1 : j + 1 == vecs;
    return last ? lastValid : lanes;
  }
  /// "14x2v16": rows x vectors of lanes, for kernel names and profiles.
  std::string str() const;
};

/// The tile of `rows` rows covering `count` elements of the vector
/// dimension.
TileShape tileFor(unsigned rows, int64_t count, unsigned lanes);

/// Runs body(start, count) over tiles of `tile` elements covering `size`: a
/// loop over the full tiles, then the remainder.
void forTiles(KernelBuilder &kb, int64_t size, int64_t tile,
              llvm::function_ref<void(llvm::Value *, int64_t)> body);

/// Accumulators, row-major: acc[i * vecs + j].
using Tile = llvm::SmallVector<llvm::Value *, 32>;

/// One step of a tile's K loop: adds A[aIndex + aRows[i]] (broadcast)
/// times the vectors B[bIndex + bVecs[j] ...] to accumulator (i, j). B's
/// vectors are loaded first, then A one value at a time, so the live
/// registers are the accumulators, `vecs` B vectors and one A value; a tile
/// of one vector uses every A value once, which the x86 back end folds into
/// the FMA as a broadcast memory operand.
///
/// Kernels build the loops around it. Steps unrolled in one loop body must
/// not read the same A address (as neighbouring taps of a stride-1
/// convolution would): LLVM then loads the value once and keeps it in a
/// register across steps, and the registers run out.
Tile tileStep(KernelBuilder &kb, const TileShape &t, Tile acc, llvm::Value *a,
              llvm::Value *aIndex, llvm::ArrayRef<int64_t> aRows,
              llvm::Value *b, llvm::Value *bIndex, llvm::ArrayRef<int64_t> bVecs);

/// The K loop around tileStep: step(sums, k) for k = 0 ... steps - 1,
/// `unroll` steps per iteration of a loop, then the remainder unrolled.
Tile reduceSteps(KernelBuilder &kb, int64_t steps, int64_t unroll, Tile acc,
                 llvm::function_ref<Tile(Tile, llvm::Value *)> step);

/// Offsets 0, stride, 2 * stride, ... of `rows` rows.
llvm::SmallVector<int64_t, 32> stridedRows(unsigned rows, int64_t stride);

/// Transposes up to `lanes` vectors of `lanes` floats (missing rows count as
/// zero): result[l] holds lane l of every input row. A butterfly of
/// two-input shuffles, log2(lanes) stages, for power-of-two `lanes`.
llvm::SmallVector<llvm::Value *, 16>
transposeVectors(KernelBuilder &kb, llvm::ArrayRef<llvm::Value *> rows,
                 unsigned lanes);

} // namespace codegen
} // namespace kiln

#endif
