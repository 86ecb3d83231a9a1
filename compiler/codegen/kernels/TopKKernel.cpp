//===- TopKKernel.cpp - TopKIndices by insertion into the output ----------===//
//
// Each row along the axis keeps its k best indices so far in the output
// itself, best first, -1 for an empty slot. An element that beats the last
// slot (most elements of a long row do not, after its first few) is
// inserted: from the last slot up, a slot takes its predecessor where the
// element beats that too, else the element where it beats the slot. A row
// costs one comparison per element plus k steps per insertion, where the
// comparisons TopK used to be imported as cost the axis length squared.
// The order is the reference's (ops/TopKOrder.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"

namespace kiln {
namespace codegen {

llvm::Error emitTopK(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  auto &b = kb.b;
  TopKIndicesView view(n);
  const TensorType &xt = n.getInput(0)->getType();
  int64_t axis = view.axis(), k = view.k();
  bool largest = view.largest() != 0;
  auto [outer, len, inner] = splitAtAxis(xt.shape, axis);
  if (k == 0 || outer * inner == 0)
    return llvm::Error::success();
  llvm::Type *ty = kb.elemType(xt.dtype), *i64 = b.getInt64Ty();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  bool isFloat = xt.dtype == DType::F32;

  // Whether a comes strictly before c (TopKOrder.h's topKBeats).
  auto beats = [&](llvm::Value *a, llvm::Value *c) -> llvm::Value * {
    if (!isFloat)
      return largest ? b.CreateICmpSGT(a, c) : b.CreateICmpSLT(a, c);
    llvm::Value *first = largest ? a : c, *second = largest ? c : a;
    return b.CreateOr(b.CreateFCmpOGT(first, second),
                      b.CreateAnd(b.CreateFCmpUNO(first, first), b.CreateFCmpORD(second, second)));
  };

  kb.nest({outer, inner}, [&](llvm::ArrayRef<llvm::Value *> ivs) {
    llvm::Value *xRow = b.CreateAdd(b.CreateMul(ivs[0], kb.idx(len * inner)), ivs[1]);
    llvm::Value *yRow = b.CreateAdd(b.CreateMul(ivs[0], kb.idx(k * inner)), ivs[1]);
    auto slotAt = [&](llvm::Value *p) { return b.CreateAdd(yRow, b.CreateMul(p, kb.idx(inner))); };
    auto elementAt = [&](llvm::Value *j) {
      return kb.load(ty, x, b.CreateAdd(xRow, b.CreateMul(j, kb.idx(inner))));
    };
    // Whether value v goes before the element in `slot` (an empty one too).
    auto takes = [&](llvm::Value *v, llvm::Value *slot) {
      llvm::Value *empty = b.CreateICmpSLT(slot, b.getInt64(0));
      llvm::Value *j = b.CreateSExtOrTrunc(
          b.CreateSelect(empty, b.getInt64(0), slot), kb.idxTy);
      return b.CreateOr(empty, beats(v, elementAt(j)));
    };
    kb.loop(k, [&](llvm::Value *p) { kb.store(b.getInt64(-1), y, slotAt(p)); }, "slot");
    kb.loop(len, [&](llvm::Value *j) {
      llvm::Value *v = elementAt(j);
      llvm::Value *last = kb.load(i64, y, slotAt(kb.idx(k - 1)));
      kb.ifElse(takes(v, last), [&] {
        llvm::Value *index = b.CreateSExtOrTrunc(j, i64);
        kb.loop(k, [&](llvm::Value *q) {
          llvm::Value *p = b.CreateSub(kb.idx(k - 1), q);
          llvm::Value *slot = kb.load(i64, y, slotAt(p));
          llvm::Value *kept = b.CreateSelect(takes(v, slot), index, slot);
          if (k > 1) {
            llvm::Value *hasPrev = b.CreateICmpSGT(p, kb.idx(0));
            llvm::Value *prev = kb.load(
                i64, y, slotAt(b.CreateSelect(hasPrev, b.CreateSub(p, kb.idx(1)), kb.idx(0))));
            kept = b.CreateSelect(b.CreateAnd(hasPrev, takes(v, prev)), prev, kept);
          }
          kb.store(kept, y, slotAt(p));
        }, "insert");
      }, [] {});
    }, "element");
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
