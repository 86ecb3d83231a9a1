//===- TopKKernel.cpp - TopKIndices by insertion into the output ----------===//
//
// Each row along the axis keeps its k best indices so far in the output
// itself, best first: the first k elements sorted by insertion, then each
// element that beats the last slot (most elements of a long row do not,
// after its first few) inserted from the last slot up, each slot it passes
// moving down one, until the slot before holds an element it does not
// beat. A row costs one comparison per element plus the slots each
// insertion passes, where the comparisons TopK used to be imported as cost
// the axis length squared.
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
    auto indexIn = [&](llvm::Value *p) { return kb.load(i64, y, slotAt(p)); };
    auto valueOf = [&](llvm::Value *index) {
      return elementAt(b.CreateSExtOrTrunc(index, kb.idxTy));
    };
    // Element j (value v) into slot `from`, or, while it beats the slot
    // before, into that one, each slot it passes moving down one.
    auto insert = [&](llvm::Value *v, llvm::Value *j, llvm::Value *from) {
      llvm::LLVMContext &ctx = b.getContext();
      llvm::Function *fn = b.GetInsertBlock()->getParent();
      llvm::BasicBlock *entry = b.GetInsertBlock();
      auto *head = llvm::BasicBlock::Create(ctx, "insert.head", fn);
      auto *compare = llvm::BasicBlock::Create(ctx, "insert.compare", fn);
      auto *shift = llvm::BasicBlock::Create(ctx, "insert.shift", fn);
      auto *done = llvm::BasicBlock::Create(ctx, "insert.done", fn);
      b.CreateBr(head);
      b.SetInsertPoint(head);
      llvm::PHINode *p = b.CreatePHI(kb.idxTy, 2, "slot");
      p->addIncoming(from, entry);
      b.CreateCondBr(b.CreateICmpSGT(p, kb.idx(0)), compare, done);
      b.SetInsertPoint(compare);
      llvm::Value *before = b.CreateSub(p, kb.idx(1));
      llvm::Value *prev = indexIn(before);
      b.CreateCondBr(beats(v, valueOf(prev)), shift, done);
      b.SetInsertPoint(shift);
      kb.store(prev, y, slotAt(p));
      p->addIncoming(before, shift);
      b.CreateBr(head);
      b.SetInsertPoint(done);
      kb.store(b.CreateSExtOrTrunc(j, i64), y, slotAt(p));
    };
    // The first k elements sorted by insertion, then each of the rest
    // inserted where it beats the last slot.
    kb.loop(k, [&](llvm::Value *j) { insert(elementAt(j), j, j); }, "first");
    if (len > k)
      kb.loop(kb.idx(k), kb.idx(len), [&](llvm::Value *j) {
        llvm::Value *v = elementAt(j);
        llvm::Value *last = kb.idx(k - 1);
        kb.ifElse(beats(v, valueOf(indexIn(last))), [&] { insert(v, j, last); }, [] {});
      }, "element");
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
