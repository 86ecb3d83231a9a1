//===- RegisterTile.cpp - Register-tiled rank-1 update loops --------------===//

#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/codegen/Kernels.h"

#include <algorithm>

namespace kiln {
namespace codegen {

std::string TileShape::str() const {
  return std::to_string(rows) + "x" + std::to_string(vecs) + "v" +
         std::to_string(lanes);
}

TileShape tileFor(unsigned rows, int64_t count, unsigned lanes) {
  TileShape t;
  t.rows = rows;
  t.lanes = lanes;
  t.vecs = static_cast<unsigned>((count + lanes - 1) / lanes);
  t.lastValid = static_cast<unsigned>(count - (t.vecs - 1) * lanes);
  return t;
}

void forTiles(KernelBuilder &kb, int64_t size, int64_t tile,
              llvm::function_ref<void(llvm::Value *, int64_t)> body) {
  int64_t full = size / tile, edge = size % tile;
  if (full)
    forEachIndex(kb, full, [&](llvm::Value *t) {
      body(kb.b.CreateMul(t, kb.idx(tile)), tile);
    });
  if (edge)
    body(kb.idx(full * tile), edge);
}

Tile reduceSteps(KernelBuilder &kb, int64_t steps, int64_t unroll, Tile acc,
                 llvm::function_ref<Tile(Tile, llvm::Value *)> step) {
  auto &b = kb.b;
  const int64_t chunks = steps / unroll, rest = steps % unroll;
  Tile sums = kb.loopCarried(chunks, acc, [&](llvm::Value *c, llvm::ArrayRef<llvm::Value *> in) {
    Tile x(in.begin(), in.end());
    for (int64_t u = 0; u < unroll; ++u)
      x = step(std::move(x), b.CreateAdd(b.CreateMul(c, kb.idx(unroll)), kb.idx(u)));
    return x;
  });
  for (int64_t r = 0; r < rest; ++r)
    sums = step(std::move(sums), kb.idx(chunks * unroll + r));
  return sums;
}

llvm::SmallVector<int64_t, 32> stridedRows(unsigned rows, int64_t stride) {
  llvm::SmallVector<int64_t, 32> offsets;
  for (unsigned i = 0; i < rows; ++i)
    offsets.push_back(i * stride);
  return offsets;
}

Tile tileStep(KernelBuilder &kb, const TileShape &t, Tile acc, llvm::Value *a,
              llvm::Value *aIndex, llvm::ArrayRef<int64_t> aRows,
              llvm::Value *b, llvm::Value *bIndex, llvm::ArrayRef<int64_t> bVecs) {
  auto &ir = kb.b;
  llvm::SmallVector<llvm::Value *, 8> bv;
  for (unsigned j = 0; j < t.vecs; ++j)
    bv.push_back(kb.loadVec(b, ir.CreateAdd(bIndex, kb.idx(bVecs[j])), t.lanes,
                            t.valid(j)));
  for (unsigned i = 0; i < t.rows; ++i) {
    llvm::Value *av = kb.splat(
        kb.load(ir.getFloatTy(), a, ir.CreateAdd(aIndex, kb.idx(aRows[i]))),
        t.lanes);
    for (unsigned j = 0; j < t.vecs; ++j)
      acc[i * t.vecs + j] = kb.fma(av, bv[j], acc[i * t.vecs + j]);
  }
  return acc;
}

llvm::SmallVector<llvm::Value *, 16>
transposeVectors(KernelBuilder &kb, llvm::ArrayRef<llvm::Value *> rows,
                 unsigned lanes) {
  llvm::SmallVector<llvm::Value *, 16> m(rows.begin(), rows.end());
  if (lanes == 1)
    return m;
  m.resize(lanes, llvm::Constant::getNullValue(kb.vecType(lanes)));
  // Stage d swaps the off-diagonal d x d blocks of every 2d x 2d block.
  for (unsigned d = 1; d < lanes; d *= 2) {
    llvm::SmallVector<int, 16> lo, hi;
    for (unsigned l = 0; l < lanes; ++l) {
      // Lane l of row r (r & d == 0) takes row r+d's lane l-d where l & d;
      // row r+d takes row r's lane l+d where !(l & d).
      lo.push_back(l & d ? lanes + l - d : l);
      hi.push_back(l & d ? lanes + l : l + d);
    }
    for (unsigned r = 0; r < lanes; ++r) {
      if (r & d)
        continue;
      llvm::Value *top = m[r], *bottom = m[r + d];
      m[r] = kb.b.CreateShuffleVector(top, bottom, lo);
      m[r + d] = kb.b.CreateShuffleVector(top, bottom, hi);
    }
  }
  return m;
}

} // namespace codegen
} // namespace kiln
