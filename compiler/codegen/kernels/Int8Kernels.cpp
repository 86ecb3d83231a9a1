//===- Int8Kernels.cpp - Portable int8 kernels, TFLite's semantics --------===//
//
// The int8 kernel of each family without weights (lir::KernelStrategy::Int8):
// scalar loops over int32 accumulators, the same arithmetic as the
// interpreter's compiler/ops/Int8*.cpp through IntegerIR, on every target.
// What TFLite computes in Prepare is computed at compile time and enters the
// code as constant tables. Conv and MatMul have kernels of their own
// (Int8GemmKernel.cpp, Int8DepthwiseKernel.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/Int8Binary.h"
#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/codegen/kernels/IntegerIR.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/QuantizedActivations.h"
#include "compiler/ops/QuantizedTypes.h"

namespace kiln {
namespace codegen {
namespace {

using Values = llvm::SmallVector<llvm::Value *, 32>;

/// Values carried over the index space `extents` (loops nested outermost
/// first): body(ivs, carried) returns the next ones.
Values carryOver(KernelBuilder &kb, llvm::ArrayRef<int64_t> extents, Values init,
                 llvm::function_ref<Values(llvm::ArrayRef<llvm::Value *>,
                                           llvm::ArrayRef<llvm::Value *>)>
                     body) {
  llvm::SmallVector<llvm::Value *, 6> ivs(extents.size(), nullptr);
  std::function<Values(size_t, llvm::ArrayRef<llvm::Value *>)> level =
      [&](size_t d, llvm::ArrayRef<llvm::Value *> carried) -> Values {
    if (d == extents.size())
      return body(ivs, carried);
    Values in(carried.begin(), carried.end());
    return kb.loopCarried(extents[d], in,
                          [&](llvm::Value *iv, llvm::ArrayRef<llvm::Value *> c) {
                            ivs[d] = iv;
                            return level(d + 1, c);
                          });
  };
  return level(0, init);
}

/// An i32 sum over the index space `extents`, from `init`.
llvm::Value *sumOver(KernelBuilder &kb, llvm::ArrayRef<int64_t> extents,
                     llvm::Value *init,
                     llvm::function_ref<llvm::Value *(llvm::ArrayRef<llvm::Value *>,
                                                      llvm::Value *)>
                         body) {
  return carryOver(kb, extents, {init},
                   [&](llvm::ArrayRef<llvm::Value *> ivs,
                       llvm::ArrayRef<llvm::Value *> acc) {
                     return Values{body(ivs, acc[0])};
                   })[0];
}

llvm::Error emitAveragePoolInt8(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  IntegerIR ir(kb);
  auto &b = kb.b;
  const TensorType &xt = n.getInput(0)->getType(), &yt = n.getOutput()->getType();
  if (xt.rank() != 4)
    return nodeError(n, "int8 AveragePool is 2-D (N x C x H x W), got " + xt.str());
  auto geom = resolveConvGeometry(n, llvm::ArrayRef(xt.shape).drop_front(2),
                                  PoolView(n).kernelShape());
  if (!geom)
    return geom.takeError();
  const int64_t P = xt.shape[0] * xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OH = yt.shape[2], OW = yt.shape[3];
  llvm::Type *i8 = b.getInt8Ty();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  kb.nest({P, OH, OW}, [&](llvm::ArrayRef<llvm::Value *> p) {
    llvm::Value *ih0 = b.CreateSub(b.CreateMul(p[1], kb.idx(geom->strides[0])),
                                   kb.idx(geom->padsBegin[0]));
    llvm::Value *iw0 = b.CreateSub(b.CreateMul(p[2], kb.idx(geom->strides[1])),
                                   kb.idx(geom->padsBegin[1]));
    // The sum of the taps inside the input, and their count.
    Values sc = carryOver(
        kb, {geom->kernel[0], geom->kernel[1]}, {ir.i32(0), ir.i32(0)},
        [&](llvm::ArrayRef<llvm::Value *> k, llvm::ArrayRef<llvm::Value *> c) {
          llvm::Value *ih = b.CreateAdd(ih0, k[0]), *iw = b.CreateAdd(iw0, k[1]);
          llvm::Value *inside = b.CreateAnd(
              b.CreateAnd(b.CreateICmpSGE(ih, kb.idx(0)), b.CreateICmpSLT(ih, kb.idx(H))),
              b.CreateAnd(b.CreateICmpSGE(iw, kb.idx(0)), b.CreateICmpSLT(iw, kb.idx(W))));
          llvm::Value *xi = kb.linear({p[0], b.CreateSelect(inside, ih, kb.idx(0)),
                                       b.CreateSelect(inside, iw, kb.idx(0))},
                                      {H * W, W, 1});
          llvm::Value *xv = ir.widen(kb.load(i8, x, xi));
          return Values{b.CreateAdd(c[0], b.CreateSelect(inside, xv, ir.i32(0))),
                        b.CreateAdd(c[1], b.CreateZExt(inside, b.getInt32Ty()))};
        });
    // averagePoolRound: ties away from zero, C++'s truncating division.
    llvm::Value *sum = sc[0], *count = sc[1];
    llvm::Value *half = b.CreateSDiv(count, ir.i32(2));
    llvm::Value *num = b.CreateSelect(b.CreateICmpSGT(sum, ir.i32(0)),
                                      b.CreateAdd(sum, half), b.CreateSub(sum, half));
    llvm::Value *safe = b.CreateSelect(b.CreateICmpEQ(count, ir.i32(0)), ir.i32(1), count);
    llvm::Value *avg = b.CreateSelect(b.CreateICmpEQ(count, ir.i32(0)), ir.i32(0),
                                      b.CreateSDiv(num, safe));
    kb.store(ir.clampToI8(avg, -128, 127), y,
             kb.linear({p[0], p[1], p[2]}, {OH * OW, OW, 1}));
  });
  return llvm::Error::success();
}

/// Add, Sub, Mul with numpy broadcasting.
llvm::Error emitBinaryInt8(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  IntegerIR ir(kb);
  auto &b = kb.b;
  const TensorType &at = n.getInput(0)->getType(), &bt = n.getInput(1)->getType(),
                   &yt = n.getOutput()->getType();
  auto binary = Int8Binary::of(ir, n);
  if (!binary)
    return binary.takeError();
  llvm::Type *i8 = b.getInt8Ty();
  const int64_t lanes = args.strategy.tile;
  if (lanes > 1) {
    // Operands of the output's shape (selectKernels): `lanes` elements a
    // step; the elements past the last whole vector one at a time.
    auto *bytesTy = llvm::FixedVectorType::get(i8, lanes);
    const int64_t count = yt.numElements(), whole = count / lanes * lanes;
    kb.loop(whole / lanes, [&](llvm::Value *step) {
      llvm::Value *at = b.CreateMul(step, kb.idx(lanes));
      auto load = [&](llvm::Value *x) {
        llvm::Value *v = b.CreateAlignedLoad(bytesTy, kb.gep(i8, x, at), llvm::Align(1));
        return b.CreateSExt(v, ir.widened(v, 32));
      };
      b.CreateAlignedStore(binary->apply(load(args.inputs[0]), load(args.inputs[1])),
                           kb.gep(i8, args.outputs[0], at), llvm::Align(1));
    });
    kb.loop(count - whole, [&](llvm::Value *j) {
      llvm::Value *at = b.CreateAdd(j, kb.idx(whole));
      kb.store(binary->apply(ir.widen(kb.load(i8, args.inputs[0], at)),
                             ir.widen(kb.load(i8, args.inputs[1], at))),
               args.outputs[0], at);
    });
    return llvm::Error::success();
  }
  Shape aStrides = broadcastStrides(at.shape, yt.shape);
  Shape bStrides = broadcastStrides(bt.shape, yt.shape);
  Shape yStrides = rowMajorStrides(yt.shape);
  kb.nest(yt.shape, [&](llvm::ArrayRef<llvm::Value *> ivs) {
    llvm::Value *av = ir.widen(kb.load(i8, args.inputs[0], kb.linear(ivs, aStrides)));
    llvm::Value *bv = ir.widen(kb.load(i8, args.inputs[1], kb.linear(ivs, bStrides)));
    kb.store(binary->apply(av, bv), args.outputs[0], kb.linear(ivs, yStrides));
  });
  return llvm::Error::success();
}

llvm::Error emitMeanInt8(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  IntegerIR ir(kb);
  auto &b = kb.b;
  const TensorType &xt = n.getInput(0)->getType(), &yt = n.getOutput()->getType();
  std::optional<llvm::ArrayRef<int64_t>> axes = ReduceView(n).axes();
  llvm::SmallVector<bool, 6> reduced(xt.rank(), !axes || axes->empty());
  if (axes)
    for (int64_t a : *axes)
      reduced[*normalizeAxis(a, xt.rank())] = true;
  Shape xStrides(xt.rank(), 1);
  for (int64_t d = int64_t(xt.rank()) - 2; d >= 0; --d)
    xStrides[d] = xStrides[d + 1] * xt.shape[d + 1];
  Shape keptExtents, keptStrides, redExtents, redStrides;
  int64_t count = 1;
  for (size_t d = 0; d < xt.rank(); ++d) {
    (reduced[d] ? redExtents : keptExtents).push_back(xt.shape[d]);
    (reduced[d] ? redStrides : keptStrides).push_back(xStrides[d]);
    if (reduced[d])
      count *= xt.shape[d];
  }
  tfl::MeanParams p = tfl::prepareMeanInt8(xt.quant.scales[0], xt.quant.zeroPoints[0],
                                           yt.quant.scales[0], yt.quant.zeroPoints[0],
                                           count);
  Shape outStrides(keptExtents.size(), 1);
  for (int64_t d = int64_t(keptExtents.size()) - 2; d >= 0; --d)
    outStrides[d] = outStrides[d + 1] * keptExtents[d + 1];
  llvm::Type *i8 = b.getInt8Ty();
  kb.nest(keptExtents, [&](llvm::ArrayRef<llvm::Value *> kept) {
    llvm::Value *base = kb.linear(kept, keptStrides);
    llvm::Value *sum = sumOver(kb, redExtents, ir.i32(0),
                               [&](llvm::ArrayRef<llvm::Value *> r, llvm::Value *acc) {
                                 return b.CreateAdd(acc, ir.widen(kb.load(
                                     i8, args.inputs[0], kb.linear(r, redStrides, base))));
                               });
    llvm::Value *v;
    if (p.count <= 0)
      v = ir.i32(0);
    else if (p.sameQuantization)
      v = b.CreateTrunc(b.CreateSDiv(sum, ir.i32(p.count)), i8);
    else
      v = ir.clampToI8(
          b.CreateAdd(ir.mbqm(b.CreateSub(sum, ir.i32(p.inputZeroPoint * p.count)),
                              p.multiplier),
                      ir.i32(p.outputZeroPoint)),
          -128, 127);
    if (v->getType() != i8)
      v = b.CreateTrunc(v, i8);
    kb.store(v, args.outputs[0], kb.linear(kept, outStrides));
  });
  return llvm::Error::success();
}

/// Softmax along the last axis. exp of a row's differences x - max, which
/// are int8 differences, is a 256-entry table computed at compile time by
/// the interpreter's own function; the reciprocal of the row's sum runs in
/// the code, as in TFLM.
llvm::Error emitSoftmaxInt8(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  IntegerIR ir(kb);
  auto &b = kb.b;
  const TensorType &xt = n.getInput(0)->getType();
  float beta = SoftmaxView(n).beta().value_or(1.0f);
  tfl::SoftmaxParams p = tfl::prepareSoftmaxInt8(beta, xt.quant.scales[0]);
  constexpr int kAccumulationIntegerBits = 12;
  std::vector<int32_t> expTable(256), sumTable(256);
  for (int32_t d = 0; d < 256; ++d) {
    bool used = -d >= p.diffMin;
    int32_t e = used ? tfl::softmaxExpOfDiff(p, -d) : 0;
    expTable[d] = e;
    sumTable[d] = used ? tfl::roundingDivideByPOT(e, kAccumulationIntegerBits) : 0;
  }
  llvm::Value *expT = ir.table(expTable, "int8.softmax.exp");
  llvm::Value *sumT = ir.table(sumTable, "int8.softmax.sum");
  int64_t depth = xt.shape.empty() ? 1 : xt.shape.back();
  int64_t rows = depth ? xt.numElements() / depth : 0;
  llvm::Type *i8 = b.getInt8Ty(), *i32 = b.getInt32Ty();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  kb.loop(rows, [&](llvm::Value *row) {
    llvm::Value *base = b.CreateMul(row, kb.idx(depth));
    llvm::Value *max = kb.loopCarried(depth, {ir.i32(-128)},
                                      [&](llvm::Value *c, llvm::ArrayRef<llvm::Value *> m) {
                                        llvm::Value *v = ir.widen(kb.load(
                                            i8, x, b.CreateAdd(base, c)));
                                        return llvm::SmallVector<llvm::Value *, 32>{
                                            b.CreateSelect(b.CreateICmpSGT(v, m[0]), v, m[0])};
                                      })[0];
    // The table index of element c: max - x in [0, 255].
    auto diffIndex = [&](llvm::Value *c) {
      llvm::Value *v = ir.widen(kb.load(i8, x, b.CreateAdd(base, c)));
      return b.CreateZExtOrTrunc(b.CreateSub(max, v), kb.idxTy);
    };
    llvm::Value *sum = kb.loopCarried(depth, {ir.i32(0)},
                                      [&](llvm::Value *c, llvm::ArrayRef<llvm::Value *> s) {
                                        return llvm::SmallVector<llvm::Value *, 32>{b.CreateAdd(
                                            s[0], kb.load(i32, sumT, diffIndex(c)))};
                                      })[0];
    // GetReciprocal: headroom, the sum shifted to [1, 2) minus one, 1/(1+x).
    llvm::Value *headroom = b.CreateIntrinsic(llvm::Intrinsic::ctlz, {i32},
                                              {sum, b.getFalse()});
    llvm::Value *bitsOverUnit = b.CreateSub(ir.i32(kAccumulationIntegerBits), headroom);
    llvm::Value *shifted = b.CreateSelect(b.CreateICmpUGE(headroom, ir.i32(32)), ir.i32(0),
                                          b.CreateShl(sum, headroom));
    llvm::Value *scale = ir.oneOverOnePlusX(b.CreateSub(shifted, ir.i32(INT32_MIN)));
    llvm::Value *exponent = b.CreateAdd(bitsOverUnit, ir.i32(31 - 8));
    llvm::Value *valid = b.CreateICmpSLE(exponent, ir.i32(31));
    llvm::Value *safeExp = b.CreateSelect(valid, exponent, ir.i32(0));
    kb.loop(depth, [&](llvm::Value *c) {
      llvm::Value *e = kb.load(i32, expT, diffIndex(c));
      llvm::Value *unsat = ir.rdbpot(ir.srdhm(scale, e), safeExp);
      llvm::Value *out = ir.clampToI8(b.CreateSub(unsat, ir.i32(128)), -128, 127);
      kb.store(b.CreateSelect(valid, out, b.getInt8(-128)), y, b.CreateAdd(base, c));
    });
  });
  return llvm::Error::success();
}

/// A unary op on int8 (an activation, a requantization, a dequantization;
/// kiln.Quantize and kiln.Dequantize also on uint8): a table of its 256
/// results, made by the op's own reference evaluator, so exact by
/// construction, and one load per element.
llvm::Error emitInt8Table(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  TensorType domainType = n.getInput(0)->getType();
  bool u8 = domainType.dtype == DType::U8 && domainType.quant.isQuantized() &&
            !domainType.quant.isPerChannel() &&
            (n.is(OpKind::Quantize) || n.is(OpKind::Dequantize));
  if (n.getNumInputs() != 1 || !(u8 || isQuantizedInt8(domainType)))
    return nodeError(n, "an int8 lookup table needs one int8 input with one "
                        "scale and zero point, got " + domainType.str());
  domainType.shape = {256};
  Tensor domain(domainType);
  // Table entry k is for the input byte whose value is k - 128 (int8) or k
  // (uint8).
  for (int k = 0; k < 256; ++k)
    domain.data<uint8_t>()[k] = uint8_t(u8 ? k : k - 128);
  TensorType resultType = n.getOutput()->getType();
  resultType.shape = {256};
  llvm::SmallVector<Tensor, 1> result;
  result.emplace_back(resultType);
  const Tensor *in[] = {&domain};
  if (llvm::Error e = n.getDef().eval(n, llvm::ArrayRef<const Tensor *>(in), result))
    return e;
  IntegerIR ir(kb);
  auto &b = kb.b;
  llvm::Value *lut = ir.table(result[0], "int8.lut");
  llvm::Type *elementTy = resultType.dtype == DType::F32 ? b.getFloatTy() : b.getInt8Ty();
  forEachIndex(kb, n.getOutput()->getType().numElements(), [&](llvm::Value *i) {
    llvm::Value *x = kb.load(b.getInt8Ty(), args.inputs[0], i);
    llvm::Value *k = u8 ? b.CreateZExt(x, kb.idxTy)
                        : b.CreateAdd(b.CreateSExt(x, kb.idxTy), kb.idx(128));
    kb.store(kb.load(elementTy, lut, k), args.outputs[0], i);
  });
  return llvm::Error::success();
}

/// QUANTIZE: from f32, AffineQuantize (round half away from zero, NaN to the
/// zero point); from int8 or uint8, a requantization table. The rounding is
/// done by hand: llvm.round becomes a libm call on cores without FP rounding
/// instructions (Cortex-M3, M4), and a bundle calls no library. A uint8
/// result is the int8 one with the zero point 128 lower, its top bit flipped.
llvm::Error emitQuantizeInt8(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (n.getInput(0)->getType().dtype != DType::F32)
    return emitInt8Table(kb, args);
  QuantParams q = n.getOutput()->getType().quant;
  int8_t flip = n.getOutput()->getType().dtype == DType::U8 ? int8_t(0x80) : 0;
  q.zeroPoints[0] -= flip ? 128 : 0;
  IntegerIR ir(kb);
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  auto f = [&](float v) { return llvm::ConstantFP::get(f32, v); };
  forEachIndex(kb, n.getOutput()->getType().numElements(), [&](llvm::Value *i) {
    llvm::Value *y = b.CreateFDiv(kb.load(f32, args.inputs[0], i), f(q.scales[0]));
    // Past +-512 every zero point saturates; inside, y - trunc(y) is exact.
    llvm::Value *c = b.CreateSelect(b.CreateFCmpOLT(y, f(-512)), f(-512), y);
    c = b.CreateSelect(b.CreateFCmpOGT(c, f(512)), f(512), c);
    llvm::Value *t = b.CreateFPToSI(c, b.getInt32Ty());
    llvm::Value *frac = b.CreateFSub(c, b.CreateSIToFP(t, f32));
    t = b.CreateAdd(t, b.CreateZExt(b.CreateFCmpOGE(frac, f(0.5f)), b.getInt32Ty()));
    t = b.CreateSub(t, b.CreateZExt(b.CreateFCmpOLE(frac, f(-0.5f)), b.getInt32Ty()));
    llvm::Value *v = ir.clampToI8(b.CreateAdd(t, ir.i32(q.zeroPoints[0])), -128, 127);
    v = b.CreateSelect(b.CreateFCmpUNO(y, y), b.getInt8(int8_t(q.zeroPoints[0])), v);
    kb.store(b.CreateXor(v, b.getInt8(flip)), args.outputs[0], i);
  });
  return llvm::Error::success();
}

} // namespace

KernelEmitter findInt8KernelEmitter(OpKind kind) {
  switch (getOpDef(kind).kernel) {
  case KernelFamily::Pool: return kind == OpKind::AveragePool ? emitAveragePoolInt8 : nullptr;
  case KernelFamily::Elementwise:
    if (kind == OpKind::Add || kind == OpKind::Sub || kind == OpKind::Mul)
      return emitBinaryInt8;
    return kind == OpKind::Quantize ? emitQuantizeInt8 : emitInt8Table;
  case KernelFamily::Reduce: return kind == OpKind::ReduceMean ? emitMeanInt8 : nullptr;
  case KernelFamily::Softmax: return kind == OpKind::Softmax ? emitSoftmaxInt8 : nullptr;
  case KernelFamily::Recurrent: return kind == OpKind::LSTM ? emitLSTMInt8 : nullptr;
  default: return nullptr;
  }
}

} // namespace codegen
} // namespace kiln
