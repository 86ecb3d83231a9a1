//===- MatMulKernel.cpp - Batched matrix product --------------------------===//
//
// numpy.matmul semantics with broadcast batch dimensions, plus kiln's fused
// fully-connected epilogue (bias over N, then an activation). Each matrix
// product is covered by register tiles (RegisterTile.h) of the strategy's
// shape (lir/RegisterTiles.h): tile rows are rows of A, each a broadcast
// A[m][k], and the vectors run along a row of B and C, so B is read in its
// own row-major layout, or, a constant matrix, packed at compile time in
// strips of the tile's columns (lir::Packing::MatMulStrips). Where B is the
// larger operand, each strip of its columns goes through all of A before
// the next (columns-outer). The K loop is innermost and unrolled; bias
// seeds the accumulators and the activation runs on them before the store.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/codegen/Kernels.h"
#include "compiler/ops/ShapeIndexing.h"

namespace kiln {
namespace codegen {

namespace {

/// K steps per iteration of a tile's K loop: at batch 1 fewer leave the
/// loads of B (from L2) measurably short of streaming on Zen 5.
constexpr int64_t kUnrolledK = 8;

/// Row blocks up to which a columns-outer tile prefetches the next strip
/// of B. Every row block prefetches it, and past a few blocks the wait of a
/// strip's first block is shared by the rest while the prefetches are not:
/// vit_b_16's 22 blocks of 9 rows ran no faster with them.
constexpr int64_t kPrefetchRowBlocks = 4;

/// Bytes of B from which it is taken to come from memory on each call (an
/// L2's worth), so worth prefetching; a smaller B (an LSTM's 32 KB) stays in
/// cache and the prefetches would only cost.
constexpr int64_t kPrefetchBytes = 1 << 20;

} // namespace

llvm::Error emitMatMul(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  for (Value *v : n.getInputs())
    if (auto e = requireF32(n, v))
      return e;
  const Activation &act = fusedActivation(n);

  // Rank-1 operands are a row (A) or a column (B); the output drops that dim.
  const MatMulDims d =
      *matMulDims(n.getInput(0)->getType().shape, n.getInput(1)->getType().shape);
  const int64_t K = d.k, N = d.n;
  // With B shared by the whole batch, the batch's matrices are rows of one
  // product (the register tile was chosen for them).
  const int64_t M = matMulGemmRows(d);
  Shape batch = M == d.m ? d.batch : Shape{};
  Shape aStrides = broadcastStrides(M == d.m ? d.aBatch : Shape{}, batch);
  Shape bStrides = broadcastStrides(M == d.m ? d.bBatch : Shape{}, batch);
  Shape cStrides = rowMajorStrides(batch);

  const unsigned lanes = kb.vec.lanes;
  const lir::RegisterTile &plan = args.strategy.registerTile;
  if (!args.strategy.is(lir::KernelStrategy::Kind::Gemm) || !plan.rows)
    return nodeError(n, "a MatMul without a register tile");
  // B in strips (lir::Packing::MatMulStrips), one matrix for the whole
  // batch: a tile's `count` columns from n0 at n0 * K, row k of them at
  // k * count (the last strip is narrower).
  const bool stripped = args.strategy.packedWeights;
  const int64_t strip = args.strategy.tile;
  if (stripped && strip != int64_t(plan.vecs) * lanes)
    return nodeError(n, "a MatMul whose strips of B are not its tile's columns");
  llvm::Function *fn = kb.b.GetInsertBlock()->getParent();
  fn->setName(fn->getName() + "." + TileShape{plan.rows, plan.vecs, lanes, lanes}.str());

  auto &b = kb.b;
  auto add = [&](llvm::Value *x, int64_t c) { return b.CreateAdd(x, kb.idx(c)); };
  auto mul = [&](llvm::Value *x, int64_t c) { return b.CreateMul(x, kb.idx(c)); };
  llvm::Value *A = args.inputs[0], *B = args.inputs[1];
  llvm::Value *bias = n.getNumInputs() > 2 ? args.inputs[2] : nullptr;
  llvm::Value *C = args.outputs[0];

  kb.nest(batch, [&](llvm::ArrayRef<llvm::Value *> bi) {
    llvm::Value *aBase = mul(kb.linear(bi, aStrides), M * K);
    llvm::Value *bBase = mul(kb.linear(bi, bStrides), K * N);
    llvm::Value *cBase = mul(kb.linear(bi, cStrides), M * N);

    // Rows m0.. of A times columns n0.. of B: `rows` x `count` outputs.
    // With `prefetchNext`, each K step also prefetches the same row of the
    // next strip (after the last full strip, the strip that ends B).
    auto tile = [&](llvm::Value *m0, unsigned rows, llvm::Value *n0, int64_t count,
                    bool prefetchNext) {
      TileShape t{rows, static_cast<unsigned>((count + lanes - 1) / lanes), lanes, 0};
      t.lastValid = static_cast<unsigned>(count - (t.vecs - 1) * lanes);
      Tile acc;
      for (unsigned i = 0; i < rows; ++i)
        for (unsigned j = 0; j < t.vecs; ++j)
          acc.push_back(bias ? kb.loadVec(bias, add(n0, j * lanes), lanes, t.valid(j))
                             : kb.splat(kb.f32(0), lanes));
      llvm::Value *aRow = b.CreateAdd(aBase, mul(m0, K));
      llvm::Value *bCol = stripped ? mul(n0, K) : b.CreateAdd(bBase, n0);
      const int64_t bRowStride = stripped ? count : N;
      // Clamped once per tile, not per step: every row of it stays in B.
      llvm::Value *next =
          prefetchNext ? b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, add(bCol, K * count),
                                                 kb.idx(K * N - K * count))
                       : nullptr;
      llvm::SmallVector<int64_t, 32> aRows = stridedRows(rows, K);
      llvm::SmallVector<int64_t, 32> bVecs = stridedRows(t.vecs, lanes);
      auto step = [&](Tile sums, llvm::Value *k) {
        if (next)
          for (int64_t line = 0; line < count; line += kLineFloats)
            kb.prefetch(B, add(b.CreateAdd(next, mul(k, count)), line));
        return tileStep(kb, t, std::move(sums), A, b.CreateAdd(aRow, k), aRows, B,
                        b.CreateAdd(bCol, mul(k, bRowStride)), bVecs);
      };
      acc = reduceSteps(kb, K, kUnrolledK, std::move(acc), step);
      llvm::Value *cRow = b.CreateAdd(b.CreateAdd(cBase, mul(m0, N)), n0);
      for (unsigned i = 0; i < rows; ++i)
        for (unsigned j = 0; j < t.vecs; ++j)
          kb.storeVec(emitActivation(kb, act, acc[i * t.vecs + j]), C,
                      add(cRow, i * N + j * lanes), t.valid(j));
    };

    // Row blocks of A and strips of B's columns, in the strategy's order.
    const int64_t chunk = int64_t(plan.vecs) * lanes;
    const int64_t fullRows = M / plan.rows, edgeRows = M % plan.rows;
    const int64_t fullStrips = N / chunk, edgeStrip = N % chunk;
    auto rowBlocks = [&](llvm::function_ref<void(llvm::Value *, unsigned)> fn) {
      if (fullRows)
        forEachIndex(kb, fullRows, [&](llvm::Value *i) { fn(mul(i, plan.rows), plan.rows); });
      if (edgeRows)
        fn(kb.idx(fullRows * plan.rows), static_cast<unsigned>(edgeRows));
    };
    auto strips = [&](llvm::function_ref<void(llvm::Value *, int64_t)> fn) {
      if (fullStrips)
        forEachIndex(kb, fullStrips, [&](llvm::Value *j) { fn(mul(j, chunk), chunk); });
      if (edgeStrip)
        fn(kb.idx(fullStrips * chunk), edgeStrip);
    };
    // Columns-outer, a strip's first row block reads it from memory and the
    // others from cache: B is the larger operand, too large to stay in
    // cache from one call to the next. With few row blocks that first wait
    // is much of the strip's time (convnext_tiny's 49 x 768 x 3072: 0.96 ms
    // with B in cache, 1.40 ms in the model), so every row block also
    // prefetches the next strip, which spreads its reads over this one.
    const bool prefetchNext = stripped && fullRows + (edgeRows ? 1 : 0) <= kPrefetchRowBlocks &&
                              K * N * int64_t(sizeof(float)) >= kPrefetchBytes;
    if (plan.columnsOuter)
      strips([&](llvm::Value *n0, int64_t count) {
        rowBlocks([&](llvm::Value *m0, unsigned rows) {
          tile(m0, rows, n0, count, prefetchNext);
        });
      });
    else
      rowBlocks([&](llvm::Value *m0, unsigned rows) {
        strips([&](llvm::Value *n0, int64_t count) { tile(m0, rows, n0, count, false); });
      });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
