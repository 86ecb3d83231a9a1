//===- Int8Elementwise.cpp - int8 Add, Sub and Mul ------------------------===//
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpHelpers.h"

namespace kiln {

llvm::Error evalBinaryInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor &y = out[0];
  const QuantParams &qa = a.getType().quant, &qb = b.getType().quant,
                    &qy = y.getType().quant;
  auto range = int8ActivationRange(n, qy);
  if (!range)
    return range.takeError();
  tfl::AddParams add;
  tfl::MulParams mul;
  if (n.is(OpKind::Mul))
    mul = tfl::prepareMul(qa.scales[0], qa.zeroPoints[0], qb.scales[0],
                          qb.zeroPoints[0], qy.scales[0], qy.zeroPoints[0]);
  else
    add = tfl::prepareAdd(qa.scales[0], qa.zeroPoints[0], qb.scales[0],
                          qb.zeroPoints[0], qy.scales[0], qy.zeroPoints[0],
                          n.is(OpKind::Sub));
  llvm::ArrayRef<int64_t> shape = y.getShape();
  StridedIndex idx(shape, {broadcastStrides(a.getShape(), shape),
                           broadcastStrides(b.getShape(), shape)});
  const int8_t *as = a.data<int8_t>(), *bs = b.data<int8_t>();
  int8_t *ys = y.data<int8_t>();
  for (int64_t i = 0, e = y.numElements(); i < e; ++i, idx.next()) {
    int8_t av = as[idx.offset(0)], bv = bs[idx.offset(1)];
    ys[i] = n.is(OpKind::Mul) ? tfl::mulInt8(mul, av, bv, *range)
                              : tfl::addInt8(add, av, bv, *range);
  }
  return llvm::Error::success();
}

} // namespace kiln
