//===- LayerNormKernel.cpp - LayerNormalization, row by row ---------------===//
//
// The tensor is rows of the normalized axes' elements (layerNormRows). Each
// row is read three times while it is in L1: its mean; the mean of the
// squares of x - mean (two passes, so no sum of squares cancels against the
// squared sum); then y = (x - mean) * invStdDev * Scale + B. The sums are
// taken of x - x[0] (the shifted-data algorithm), so a row far from zero
// keeps its mean's digits. One kernel instead of the six a written-out
// LayerNorm lowers to, none of whose intermediates goes through memory. The
// Mean and InvStdDev results are one value a row.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/RowReduce.h"
#include "compiler/codegen/kernels/ScalarMath.h"
#include "compiler/ops/OpGeometry.h"

#include <functional>

namespace kiln {
namespace codegen {

llvm::Error emitLayerNorm(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (auto e = requireF32(n, n.getInput(0)))
    return e;
  std::optional<LayerNormRows> rows = layerNormRows(n);
  if (!rows)
    return nodeError(n, "Scale or B broadcasts over part of a row; lowering "
                        "writes such a LayerNormalization out");
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  unsigned lanes = kb.vec.lanes;
  int64_t D = rows->row, full = D / lanes;
  unsigned tail = unsigned(D % lanes);
  llvm::Value *x = args.inputs[0], *scale = args.inputs[1];
  llvm::Value *bias = args.inputs.size() > 2 ? args.inputs[2] : nullptr;
  llvm::Value *y = args.outputs[0];
  llvm::Value *meanOut = args.outputs.size() > 1 ? args.outputs[1] : nullptr;
  llvm::Value *invOut = args.outputs.size() > 2 ? args.outputs[2] : nullptr;
  float epsilon = float(normalizedAxes(n).epsilon);
  float invCount = 1.0f / float(D);

  // A parameter's vector at a row position: its own elements, or its one
  // value in every lane.
  auto param = [&](llvm::Value *p, bool scalar) -> std::function<llvm::Value *(llvm::Value *, unsigned)> {
    if (!p)
      return nullptr;
    if (scalar) {
      llvm::Value *v = kb.splat(kb.load(f32, p, kb.idx(0)), lanes);
      return [v](llvm::Value *, unsigned) { return v; };
    }
    return [&kb, p, lanes](llvm::Value *j, unsigned valid) {
      return kb.loadVec(p, j, lanes, valid);
    };
  };
  auto scaleAt = param(scale, rows->scalarScale);
  auto biasAt = param(bias, rows->scalarBias);

  forEachIndex(kb, rows->rows, [&](llvm::Value *r) {
    llvm::Value *base = b.CreateMul(r, kb.idx(D));
    // Sums of x - x[0], not of x: far from zero, a row's sum would round
    // away the digits the mean needs. x - x[0] is exact for a row of
    // nearby values, and so is d = (x - x[0]) - shift.
    llvm::Value *first = kb.load(f32, x, base);
    llvm::Value *firstVec = kb.splat(first, lanes);
    auto fromFirst = [&](llvm::Value *i, unsigned valid) {
      return b.CreateFSub(kb.loadVec(x, i, lanes, valid), firstVec);
    };
    auto add = [&](llvm::Value *a, llvm::Value *c) { return b.CreateFAdd(a, c); };
    llvm::Value *shift =
        b.CreateFMul(reduceRow(kb, base, full, tail, fromFirst, add, kb.f32(0)), kb.f32(invCount));
    llvm::Value *shiftVec = kb.splat(shift, lanes);
    auto centred = [&](llvm::Value *i, unsigned valid) {
      return b.CreateFSub(fromFirst(i, valid), shiftVec);
    };
    llvm::Value *variance = b.CreateFMul(reduceRow(kb, base, full, tail,
                                                   [&](llvm::Value *i, unsigned valid) {
                                                     llvm::Value *d = centred(i, valid);
                                                     return b.CreateFMul(d, d);
                                                   },
                                                   add, kb.f32(0)),
                                         kb.f32(invCount));
    llvm::Value *inv = b.CreateFDiv(
        kb.f32(1), ScalarMath(kb).sqrt(b.CreateFAdd(variance, kb.f32(epsilon))));
    if (meanOut)
      kb.store(b.CreateFAdd(first, shift), meanOut, r);
    if (invOut)
      kb.store(inv, invOut, r);
    llvm::Value *invVec = kb.splat(inv, lanes);
    auto normalize = [&](llvm::Value *k, unsigned valid) {
      llvm::Value *j = b.CreateMul(k, kb.idx(lanes));
      llvm::Value *i = b.CreateAdd(base, j);
      llvm::Value *v = b.CreateFMul(centred(i, valid), invVec);
      v = biasAt ? kb.fma(v, scaleAt(j, valid), biasAt(j, valid))
                 : b.CreateFMul(v, scaleAt(j, valid));
      kb.storeVec(v, y, i, valid);
    };
    kb.loop(full, [&](llvm::Value *k) { normalize(k, lanes); });
    if (tail)
      normalize(kb.idx(full), tail);
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
