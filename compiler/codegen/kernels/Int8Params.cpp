#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/ops/Int8Eval.h"

#include <algorithm>
#include <cstdlib>

namespace kiln {
namespace codegen {

Requantizer::Requantizer(IntegerIR ir, llvm::ArrayRef<tfl::QuantizedMultiplier> m,
                         int64_t sumBound)
    : ir(ir) {
  std::vector<int32_t> mult, shifts, left, right, up, down;
  int maxLeft = 0;
  for (const tfl::QuantizedMultiplier &q : m) {
    mult.push_back(q.multiplier);
    shifts.push_back(q.shift);
    int l = q.shift > 0 ? q.shift : 0, e = q.shift > 0 ? 0 : -q.shift;
    maxLeft = std::max(maxLeft, l);
    left.push_back(l);
    right.push_back(e);
    up.push_back(e ? 1 << (e - 1) : 0);
    down.push_back(e ? (1 << (e - 1)) - 1 : 0);
  }
  multiplier = ir.table(mult, "int8.multiplier");
  if (sumBound < (int64_t(1) << (30 - std::min(maxLeft, 30)))) {
    if (maxLeft)
      leftShift = ir.table(left, "int8.shift.left");
    rightShift = ir.table(right, "int8.shift.right");
    nudgeUp = ir.table(up, "int8.nudge.up");
    nudgeDown = ir.table(down, "int8.nudge.down");
  } else {
    shift = ir.table(shifts, "int8.shift");
  }
}

llvm::Value *Requantizer::apply(llvm::Value *sum, llvm::Value *channel) {
  KernelBuilder &kb = ir.kb;
  auto &b = ir.b;
  llvm::Type *i32 = b.getInt32Ty();
  llvm::Value *m = kb.load(i32, multiplier, channel);
  if (shift)
    return ir.mbqm(sum, m, kb.load(i32, shift, channel));
  llvm::Value *x = leftShift ? b.CreateShl(sum, kb.load(i32, leftShift, channel)) : sum;
  llvm::Value *high = ir.roundedHighMul(x, m);
  llvm::Value *nudge = b.CreateSelect(b.CreateICmpSLT(high, ir.i32(0)),
                                      kb.load(i32, nudgeDown, channel),
                                      kb.load(i32, nudgeUp, channel));
  return b.CreateAShr(b.CreateAdd(high, nudge), kb.load(i32, rightShift, channel));
}

int64_t int8SumBound(const Node &n, int64_t taps) {
  int64_t bias = 0;
  if (const Value *b = n.getInput(2))
    for (int32_t v : llvm::ArrayRef(b->getConstant().data<int32_t>(), b->getType().numElements()))
      bias = std::max<int64_t>(bias, std::abs(int64_t(v)));
  return bias + taps * 128 * 255;
}

std::vector<int32_t> int8Bias(const Node &n, int64_t channels) {
  std::vector<int32_t> bias(channels, 0);
  if (const Value *b = n.getInput(2))
    for (int64_t c = 0; c < channels; ++c)
      bias[c] = b->getConstant().data<int32_t>()[c];
  return bias;
}

llvm::Expected<tfl::ActivationRange> weightedInt8Range(const Node &n) {
  for (unsigned i : {1u, 2u})
    if (const Value *v = n.getInput(i); v && !v->isConstant())
      return nodeError(n, "int8 weights and bias must be constants");
  return int8ActivationRange(n, n.getOutput()->getType().quant);
}

} // namespace codegen
} // namespace kiln
