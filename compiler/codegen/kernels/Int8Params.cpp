#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/ops/Int8Eval.h"

#include <algorithm>
#include <cstdlib>

namespace kiln {
namespace codegen {

/// The largest right shift e whose channels take the zero point in their
/// rounding constant: K = 2^(e-1) + zp 2^e fits in 32 bits then.
constexpr int kFoldedZeroPointShift = 22;

/// The rows of Requantizer::fused: {M, K, e} per channel, and with
/// `preShift` {s, the sign mask}. A channel that shifts right by e >= 1
/// doubles its sum (s = 1) and takes K = 2^(e-1) + zp 2^e and the sign mask
/// -1; one that shifts left by l >= 0 (e = 0) shifts its sum by l + 1 and
/// takes K = zp and the mask 0, which leaves one rounding, floor((sum
/// 2^(l+1) M + 2^31) / 2^32) + zp.
static std::vector<int32_t> fusedRequantRows(llvm::ArrayRef<tfl::QuantizedMultiplier> m,
                                             bool preShift, int32_t zeroPoint) {
  std::vector<int32_t> rows;
  for (const tfl::QuantizedMultiplier &q : m) {
    int e = q.shift < 0 ? -q.shift : 0;
    int64_t k = e ? (int64_t(1) << (e - 1)) + int64_t(zeroPoint) * (int64_t(1) << e) : zeroPoint;
    rows.insert(rows.end(), {q.multiplier, int32_t(k), e});
    if (preShift)
      rows.insert(rows.end(), {e ? 1 : q.shift + 1, e ? -1 : 0});
  }
  return rows;
}

Requantizer::Requantizer(IntegerIR ir, llvm::ArrayRef<tfl::QuantizedMultiplier> m,
                         llvm::ArrayRef<int64_t> sumBounds, int32_t zeroPoint)
    : ir(ir), zeroPoint(zeroPoint) {
  std::vector<int32_t> mult, shifts, left, right, up, down;
  bool anyLeft = false, bounded = true, fusable = true;
  for (size_t c = 0; c < m.size(); ++c) {
    const tfl::QuantizedMultiplier &q = m[c];
    int l = q.shift > 0 ? q.shift : 0, e = q.shift > 0 ? 0 : -q.shift;
    bounded &= sumBounds[sumBounds.size() == 1 ? 0 : c] < (int64_t(1) << (30 - std::min(l, 30)));
    fusable &= e == 0 || q.multiplier >= (1 << 30);
    fusedPreShift |= e == 0;
    fusedZeroPoint &= e <= kFoldedZeroPointShift;
    mult.push_back(q.multiplier);
    shifts.push_back(q.shift);
    anyLeft |= l > 0;
    left.push_back(l);
    right.push_back(e);
    up.push_back(e ? 1 << (e - 1) : 0);
    down.push_back(e ? (1 << (e - 1)) - 1 : 0);
  }
  multiplier = ir.table(mult, "int8.multiplier");
  if (bounded) {
    if (anyLeft)
      leftShift = ir.table(left, "int8.shift.left");
    rightShift = ir.table(right, "int8.shift.right");
    nudgeUp = ir.table(up, "int8.nudge.up");
    nudgeDown = ir.table(down, "int8.nudge.down");
    if (fusable) {
      fusedRows = fusedRequantRows(m, fusedPreShift, fusedZeroPoint ? zeroPoint : 0);
      fused = ir.table(fusedRows, "int8.requant");
    }
  } else {
    shift = ir.table(shifts, "int8.shift");
  }
}

llvm::Value *Requantizer::applyFused(llvm::Value *sum, llvm::Value *channel, bool doubled) {
  auto &b = ir.b;
  llvm::Value *row = b.CreateMul(
      channel, llvm::ConstantInt::get(channel->getType(), fusedPreShift ? 5 : 3));
  return applyFused(sum, doubled, [&](int k) {
    return ir.kb.load(b.getInt32Ty(), fused,
                      b.CreateAdd(row, llvm::ConstantInt::get(channel->getType(), k)));
  });
}

llvm::Value *Requantizer::applyFused(llvm::Value *sum, bool doubled,
                                     llvm::function_ref<llvm::Value *(int)> field) {
  auto &b = ir.b;
  llvm::Type *i64 = b.getInt64Ty();
  // The high word of 2 sum M + (K - [sum < 0]) 2^32 + 2^31, then the shift
  // by e: one SMMLAR and an ASR on the Arm DSP.
  llvm::Value *sign = b.CreateAShr(sum, ir.i32(31));
  if (fusedPreShift)
    sign = b.CreateAnd(sign, field(4));
  llvm::Value *twice = doubled ? sum : b.CreateShl(sum, fusedPreShift ? field(3) : ir.i32(1));
  llvm::Value *k = b.CreateAdd(field(1), sign);
  llvm::Value *product = b.CreateMul(b.CreateSExt(twice, i64), b.CreateSExt(field(0), i64));
  llvm::Value *total = b.CreateAdd(b.CreateAdd(product, b.CreateShl(b.CreateSExt(k, i64), 32)),
                                   b.getInt64(int64_t(1) << 31));
  llvm::Value *high = b.CreateTrunc(b.CreateAShr(total, 32), b.getInt32Ty());
  llvm::Value *v = b.CreateAShr(high, field(2));
  return fusedZeroPoint ? v : b.CreateAdd(v, ir.i32(zeroPoint));
}

llvm::ArrayRef<int32_t> Requantizer::doubledSumConstants(int64_t channel) const {
  assert(takesDoubledSums());
  return llvm::ArrayRef(fusedRows).slice(3 * channel, 3);
}

llvm::Value *Requantizer::applyDoubled(llvm::Value *sum, llvm::ArrayRef<llvm::Value *> constants) {
  assert(takesDoubledSums() && constants.size() == 3);
  return applyFused(sum, true, [&](int k) { return constants[k]; });
}

llvm::Value *Requantizer::apply(llvm::Value *sum, llvm::Value *channel, bool doubled) {
  auto &b = ir.b;
  assert(!doubled || takesDoubledSums());
  if (fused && !sum->getType()->isVectorTy())
    return applyFused(sum, channel, doubled);
  return applyTables(sum, [&](llvm::Value *table) -> llvm::Value * {
    llvm::Value *v = ir.kb.load(b.getInt32Ty(), table, channel);
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(sum->getType()))
      return b.CreateVectorSplat(vt->getNumElements(), v);
    return v;
  });
}

llvm::Value *Requantizer::applyLanes(llvm::Value *sum, llvm::Value *firstChannel) {
  auto &b = ir.b;
  return applyTables(sum, [&](llvm::Value *table) -> llvm::Value * {
    return b.CreateAlignedLoad(sum->getType(), ir.kb.gep(b.getInt32Ty(), table, firstChannel),
                               llvm::Align(4));
  });
}

llvm::Value *Requantizer::applyTables(llvm::Value *sum,
                                      llvm::function_ref<llvm::Value *(llvm::Value *)> param) {
  auto &b = ir.b;
  llvm::Value *m = param(multiplier);
  llvm::Value *v;
  if (shift) {
    v = ir.mbqm(sum, m, param(shift));
  } else {
    llvm::Value *x = leftShift ? b.CreateShl(sum, param(leftShift)) : sum;
    llvm::Value *high = ir.roundedHighMul(x, m);
    llvm::Value *nudge = b.CreateSelect(b.CreateICmpSLT(high, ir.like(high, 0)),
                                        param(nudgeDown), param(nudgeUp));
    v = b.CreateAShr(b.CreateAdd(high, nudge), param(rightShift));
  }
  return b.CreateAdd(v, ir.like(v, zeroPoint));
}

Int8Channels int8Channels(const Node &n, int64_t channels, bool fullyConnected,
                          tfl::ActivationRange range) {
  const TensorType &xt = n.getInput(0)->getType(), &wt = n.getInput(1)->getType();
  const int32_t outZp = n.getOutput()->getType().quant.zeroPoints[0];
  Int8Channels ch{std::vector<int32_t>(channels, 0),
                  channelMultipliers(xt.quant, wt.quant, n.getOutput()->getType().quant,
                                     channels, fullyConnected),
                  std::vector<int64_t>(channels, 0)};
  if (const Value *b = n.getInput(2))
    for (int64_t c = 0; c < channels; ++c)
      ch.bias[c] = b->getConstant().data<int32_t>()[c];
  const int64_t zp = xt.quant.zeroPoints[0];
  const int64_t input = std::max(std::abs(-128 - zp), std::abs(127 - zp));
  const int8_t *weights = n.getInput(1)->getConstant().data<int8_t>();
  const int64_t count = wt.numElements(), taps = count / channels;
  for (int64_t i = 0; i < count; ++i)
    ch.sumBounds[n.is(OpKind::Conv) ? i / taps : i % channels] +=
        std::abs(int64_t(weights[i])) * input;
  for (int64_t c = 0; c < channels; ++c) {
    if (!ch.sumBounds[c]) {
      int32_t t = tfl::multiplyByQuantizedMultiplier(ch.bias[c], ch.multipliers[c]) + outZp;
      ch.bias[c] = 4 * (std::clamp(t, range.min, range.max) - outZp);
      ch.multipliers[c] = {1 << 30, -1};
    }
    ch.sumBounds[c] += std::abs(int64_t(ch.bias[c]));
  }
  return ch;
}

llvm::Expected<tfl::ActivationRange> weightedInt8Range(const Node &n) {
  for (unsigned i : {1u, 2u})
    if (const Value *v = n.getInput(i); v && !v->isConstant())
      return nodeError(n, "int8 weights and bias must be constants");
  return int8ActivationRange(n, n.getOutput()->getType().quant);
}

void emitInt8PlaneInterior(IntegerIR &ir, llvm::Value *x, llvm::ArrayRef<int64_t> xShape,
                           llvm::Value *bn, llvm::Value *channel, int32_t inOffset,
                           llvm::Value *plane, int64_t planeCols, int64_t padTop,
                           int64_t padLeft, bool armDsp) {
  KernelBuilder &kb = ir.kb;
  auto &b = ir.b;
  const int64_t C = xShape[1], H = xShape[2], W = xShape[3];
  const int64_t words = armDsp ? W / 4 : 0;
  auto input = [&](llvm::Value *h, llvm::Value *w) {
    return kb.linear({bn, channel, h, w}, {C * H * W, H * W, W, 1});
  };
  auto inPlane = [&](llvm::Value *h, llvm::Value *w) {
    return kb.linear({h, w}, {planeCols, 1}, kb.idx(padTop * planeCols + padLeft));
  };
  if (words) {
    llvm::Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty();
    kb.nest({H, words}, [&](llvm::ArrayRef<llvm::Value *> hq) {
      llvm::Value *w = b.CreateShl(hq[1], kb.idx(2));
      llvm::Value *word =
          b.CreateAlignedLoad(i32, kb.gep(i8, x, input(hq[0], w)), llvm::Align(1));
      // (x0, x2) and (x1, x3), the offset added.
      auto [even, odd] = ir.widenedBytePairs(word, inOffset);
      llvm::Value *low = b.CreateOr(b.CreateAnd(even, ir.i32(0xFFFF)), b.CreateShl(odd, ir.i32(16)));
      llvm::Value *high = b.CreateOr(b.CreateAnd(odd, ir.i32(int32_t(0xFFFF0000))),
                                     b.CreateLShr(even, ir.i32(16)));
      llvm::Value *at = inPlane(hq[0], w);
      b.CreateAlignedStore(low, kb.gep(i16, plane, at), llvm::Align(2));
      b.CreateAlignedStore(high, kb.gep(i16, plane, b.CreateAdd(at, kb.idx(2))), llvm::Align(2));
    });
  }
  if (words * 4 == W)
    return;
  kb.nest({H, W - words * 4}, [&](llvm::ArrayRef<llvm::Value *> hw) {
    llvm::Value *w = b.CreateAdd(hw[1], kb.idx(words * 4));
    llvm::Value *v = ir.widen(kb.load(b.getInt8Ty(), x, input(hw[0], w)));
    kb.store(b.CreateTrunc(b.CreateAdd(v, ir.i32(inOffset)), b.getInt16Ty()), plane,
             inPlane(hw[0], w));
  });
}

} // namespace codegen
} // namespace kiln
