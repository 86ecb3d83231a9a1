//===- MatMulKernel.cpp - Batched matrix product --------------------------===//
//
// numpy.matmul semantics with broadcast batch dimensions, plus kiln's fused
// fully-connected epilogue (bias over N, then an activation). Loop order
// m, k, n: the innermost loop streams a row of B into a row of C and
// vectorizes without a horizontal reduction.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"

namespace kiln {
namespace codegen {

llvm::Error emitMatMul(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  for (Value *v : n.getInputs())
    if (auto e = requireF32(n, v))
      return e;
  llvm::StringRef act = n.getString("kiln.activation");
  llvm::ArrayRef<float> actParams = n.getFloats("kiln.activation_params");
  if (auto e = validateActivation(act, actParams))
    return nodeError(n, llvm::toString(std::move(e)));

  // Rank-1 operands are a row (A) or a column (B); the output drops that dim.
  Shape a(n.getInput(0)->getType().shape), bsh(n.getInput(1)->getType().shape);
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (bsh.size() == 1)
    bsh.push_back(1);
  const int64_t M = a[a.size() - 2], K = a.back(), N = bsh.back();
  size_t batchRank = std::max(a.size(), bsh.size()) - 2;
  Shape batch(batchRank, 1), aStrides(batchRank, 0), bStrides(batchRank, 0);
  // Batch strides in matrices; broadcast dimensions get stride 0.
  auto fill = [&](llvm::ArrayRef<int64_t> s, Shape &strides) {
    size_t r = s.size() - 2, pad = batchRank - r;
    int64_t stride = 1;
    for (size_t i = r; i-- > 0;) {
      batch[pad + i] = std::max(batch[pad + i], s[i]);
      strides[pad + i] = s[i] == 1 ? 0 : stride;
      stride *= s[i];
    }
  };
  fill(a, aStrides);
  fill(bsh, bStrides);
  Shape cStrides = rowMajorStrides(batch);

  llvm::Type *f32 = kb.b.getFloatTy();
  llvm::Value *A = args.inputs[0], *B = args.inputs[1];
  llvm::Value *bias = args.inputs.size() > 2 ? args.inputs[2] : nullptr;
  llvm::Value *C = args.outputs[0];
  kb.nest(batch, [&](llvm::ArrayRef<llvm::Value *> bi) {
    llvm::Value *aBase = kb.b.CreateMul(kb.linear(bi, aStrides), kb.idx(M * K));
    llvm::Value *bBase = kb.b.CreateMul(kb.linear(bi, bStrides), kb.idx(K * N));
    llvm::Value *cBase = kb.b.CreateMul(kb.linear(bi, cStrides), kb.idx(M * N));
    kb.loop(M, [&](llvm::Value *m) {
      llvm::Value *cRow = kb.b.CreateAdd(cBase, kb.b.CreateMul(m, kb.idx(N)));
      llvm::Value *aRow = kb.b.CreateAdd(aBase, kb.b.CreateMul(m, kb.idx(K)));
      kb.loop(N, [&](llvm::Value *j) {
        kb.store(bias ? kb.load(f32, bias, j) : kb.f32(0), C,
                 kb.b.CreateAdd(cRow, j));
      });
      kb.loop(K, [&](llvm::Value *k) {
        llvm::Value *av = kb.load(f32, A, kb.b.CreateAdd(aRow, k));
        llvm::Value *bRow = kb.b.CreateAdd(bBase, kb.b.CreateMul(k, kb.idx(N)));
        kb.loop(N, [&](llvm::Value *j) {
          llvm::Value *ci = kb.b.CreateAdd(cRow, j);
          llvm::Value *bv = kb.load(f32, B, kb.b.CreateAdd(bRow, j));
          kb.store(kb.b.CreateFAdd(kb.load(f32, C, ci), kb.b.CreateFMul(av, bv)),
                   C, ci);
        });
      });
      if (!act.empty())
        kb.loop(N, [&](llvm::Value *j) {
          llvm::Value *ci = kb.b.CreateAdd(cRow, j);
          kb.store(kb.activation(act, actParams, kb.load(f32, C, ci)), C, ci);
        });
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
