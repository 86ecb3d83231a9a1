#include "compiler/codegen/kernels/Int8Binary.h"

#include <cstdlib>

namespace kiln {
namespace codegen {

std::optional<Int8Binary::SplitScaling>
Int8Binary::splitScaling(const tfl::AddParams &add, int operand,
                         llvm::ArrayRef<int32_t> values) {
  const tfl::QuantizedMultiplier &m = multiplierOf(add, operand);
  if (m.shift > 0 || add.leftShift < 1 || add.leftShift > 30)
    return std::nullopt;
  const int32_t lowShift = 31 - add.leftShift;
  SplitScaling s{m.multiplier >> lowShift, m.multiplier & ((1 << lowShift) - 1),
                 1 << (lowShift - 1), lowShift, -m.shift};
  for (int v = -128; v < 128; ++v) {
    const int64_t a = int64_t(v) + offsetOf(add, operand);
    const int64_t high = a * s.high, low = a * s.low + s.round;
    if (std::abs(high) > INT32_MAX || std::abs(low) > INT32_MAX)
      return std::nullopt;
    const int64_t h = high + (low >> lowShift);
    if (std::abs(h) > INT32_MAX ||
        tfl::roundingDivideByPOT(int32_t(h), s.exponent) != values[v + 128])
      return std::nullopt;
  }
  return s;
}

llvm::Expected<Int8Binary> Int8Binary::of(IntegerIR ir, const Node &n) {
  auto p = prepareBinaryInt8(n);
  if (!p)
    return p.takeError();
  if (p->isMul)
    return Int8Binary(ir, *p,
                      Requantizer(ir, {p->mul.output}, {255 * 255}, p->mul.outputZeroPoint));
  const tfl::AddParams &add = p->add;
  std::array<std::vector<int32_t>, 2> values;
  // The sum is bounded by the largest scaled values.
  int64_t sumBound = 0;
  for (int i = 0; i < 2; ++i) {
    int64_t largest = 0;
    for (int v = -128; v < 128; ++v) {
      values[i].push_back(tfl::multiplyByQuantizedMultiplier(
          (v + offsetOf(add, i)) * (1 << add.leftShift), multiplierOf(add, i)));
      largest = std::max<int64_t>(largest, std::abs(int64_t(values[i].back())));
    }
    sumBound += largest;
  }
  Int8Binary binary(ir, *p, Requantizer(ir, {add.output}, {sumBound}, add.outputOffset));
  for (int i = 0; i < 2; ++i) {
    binary.tables[i] = ir.table(values[i], "int8.add.scaled");
    binary.split[i] = splitScaling(add, i, values[i]);
  }
  return binary;
}

llvm::Value *Int8Binary::scaled(int operand, llvm::Value *v) {
  auto &b = ir.b;
  if (!v->getType()->isVectorTy())
    return ir.kb.load(b.getInt32Ty(), tables[operand],
                      b.CreateSExt(b.CreateAdd(v, ir.i32(128)), ir.kb.idxTy));
  const tfl::AddParams &add = p.add;
  llvm::Value *a = b.CreateAdd(v, ir.like(v, offsetOf(add, operand)));
  if (const std::optional<SplitScaling> &s = split[operand]) {
    llvm::Value *low = b.CreateAShr(
        b.CreateAdd(b.CreateMul(a, ir.like(a, s->low)), ir.like(a, s->round)), s->lowShift);
    llvm::Value *h = b.CreateAdd(b.CreateMul(a, ir.like(a, s->high)), low);
    return ir.rdbpot(h, ir.like(h, s->exponent));
  }
  const tfl::QuantizedMultiplier &m = multiplierOf(add, operand);
  return ir.mbqm(b.CreateShl(a, ir.like(a, add.leftShift)), ir.like(a, m.multiplier),
                 ir.like(a, m.shift));
}

llvm::Value *Int8Binary::apply(llvm::Value *a, llvm::Value *b) {
  auto &ib = ir.b;
  llvm::Value *raw;
  if (p.isMul) {
    raw = ib.CreateMul(ib.CreateSub(a, ir.like(a, p.mul.input1ZeroPoint)),
                       ib.CreateSub(b, ir.like(b, p.mul.input2ZeroPoint)));
  } else {
    llvm::Value *x1 = scaled(0, a), *x2 = scaled(1, b);
    raw = p.add.subtract ? ib.CreateSub(x1, x2) : ib.CreateAdd(x1, x2);
  }
  return ir.clampToI8(requant.apply(raw, ir.kb.idx(0)), p.range.min, p.range.max);
}

} // namespace codegen
} // namespace kiln
