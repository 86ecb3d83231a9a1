//===- Int8Elementwise.cpp - int8 Add, Sub and Mul ------------------------===//
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/ShapeIndexing.h"

namespace kiln {

llvm::Expected<BinaryInt8Params> prepareBinaryInt8(const Node &n) {
  const QuantParams &qa = n.getInput(0)->getType().quant,
                    &qb = n.getInput(1)->getType().quant,
                    &qy = n.getOutput()->getType().quant;
  auto range = int8ActivationRange(n, qy);
  if (!range)
    return range.takeError();
  BinaryInt8Params p;
  p.range = *range;
  p.isMul = n.is(OpKind::Mul);
  if (p.isMul)
    p.mul = tfl::prepareMul(qa.scales[0], qa.zeroPoints[0], qb.scales[0],
                            qb.zeroPoints[0], qy.scales[0], qy.zeroPoints[0]);
  else
    p.add = tfl::prepareAdd(qa.scales[0], qa.zeroPoints[0], qb.scales[0],
                            qb.zeroPoints[0], qy.scales[0], qy.zeroPoints[0],
                            n.is(OpKind::Sub));
  return p;
}

llvm::Error evalBinaryInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor &y = out[0];
  auto p = prepareBinaryInt8(n);
  if (!p)
    return p.takeError();
  llvm::ArrayRef<int64_t> shape = y.getShape();
  StridedIndex idx(shape, {broadcastStrides(a.getShape(), shape),
                           broadcastStrides(b.getShape(), shape)});
  const int8_t *as = a.data<int8_t>(), *bs = b.data<int8_t>();
  int8_t *ys = y.data<int8_t>();
  for (int64_t i = 0, e = y.numElements(); i < e; ++i, idx.next()) {
    int8_t av = as[idx.offset(0)], bv = bs[idx.offset(1)];
    ys[i] = p->isMul ? tfl::mulInt8(p->mul, av, bv, p->range)
                     : tfl::addInt8(p->add, av, bv, p->range);
  }
  return llvm::Error::success();
}

} // namespace kiln
