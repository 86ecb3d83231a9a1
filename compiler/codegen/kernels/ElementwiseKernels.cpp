//===- ElementwiseKernels.cpp - Every elementwise op, one loop ------------===//
//
// One kernel serves every elementwise op: a loop over the output (a flat one
// when no operand is broadcast, a nest with per-operand strides otherwise)
// that loads each operand's element, computes the result with the op's
// scalar definition below and stores it. Floats are computed in f32 (f16 is
// decoded on load and encoded on store, without libcalls), integers in their
// own width (so wrap-around is the dtype's), bools as i8 0/1. The scalar
// definitions follow the reference semantics in compiler/ops; the math
// functions come from ScalarMath. A fused chain (lir::Instr::fused) is the
// same loop with the scalar definitions applied one after the other to the
// element in registers, each later node's other operands loaded alongside.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/codegen/kernels/ScalarMath.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"

#include <cmath>
#include <limits>

namespace kiln {
namespace codegen {
namespace {

bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::F64;
}
bool isUnsigned(DType t) {
  return t == DType::U8 || t == DType::U16 || t == DType::U32 ||
         t == DType::U64 || t == DType::Bool;
}

/// One operand element: f32 for f32 and f16, double for f64, the integer
/// itself otherwise.
struct Operand {
  llvm::Value *v;
  DType dt;
};

/// The type an element is stored as (f16 as its bits).
llvm::Type *storageType(KernelBuilder &kb, DType t) {
  return t == DType::F16 ? kb.b.getInt16Ty() : kb.elemType(t);
}

/// The type an element is computed in.
llvm::Type *valueType(KernelBuilder &kb, DType t) {
  return t == DType::F16 ? kb.b.getFloatTy() : kb.elemType(t);
}

llvm::Value *loadElem(KernelBuilder &kb, llvm::Value *base, llvm::Value *i,
                      DType t) {
  llvm::Value *v = kb.load(storageType(kb, t), base, i);
  return t == DType::F16 ? ScalarMath(kb).halfToFloat(v) : v;
}

void storeElem(KernelBuilder &kb, llvm::Value *v, llvm::Value *base,
               llvm::Value *i, DType t) {
  kb.store(t == DType::F16 ? ScalarMath(kb).floatToHalf(v) : v, base, i);
}

llvm::Value *toF32(KernelBuilder &kb, const Operand &x) {
  if (isFloat(x.dt))
    return x.v;
  return isUnsigned(x.dt) ? kb.b.CreateUIToFP(x.v, kb.b.getFloatTy())
                          : kb.b.CreateSIToFP(x.v, kb.b.getFloatTy());
}

llvm::Value *boolToI8(KernelBuilder &kb, llvm::Value *i1) {
  return kb.b.CreateZExt(i1, kb.b.getInt8Ty());
}

/// Cast's conversion, as in the reference: float to integer truncates and
/// saturates (NaN is 0), to bool tests != 0.
llvm::Value *convert(KernelBuilder &kb, const Operand &x, DType to) {
  auto &b = kb.b;
  if (to == DType::Bool)
    return boolToI8(kb, isFloat(x.dt)
                            ? b.CreateFCmpUNE(x.v, llvm::ConstantFP::get(
                                                       x.v->getType(), 0.0))
                            : b.CreateICmpNE(x.v, llvm::ConstantInt::get(
                                                      x.v->getType(), 0)));
  llvm::Type *ty = valueType(kb, to);
  if (isFloat(to)) {
    if (isFloat(x.dt))
      return b.CreateFPCast(x.v, ty);
    return isUnsigned(x.dt) ? b.CreateUIToFP(x.v, ty) : b.CreateSIToFP(x.v, ty);
  }
  if (isFloat(x.dt))
    return ScalarMath(kb).floatToInt(x.v, ty, isUnsigned(to));
  return isUnsigned(x.dt) ? b.CreateZExtOrTrunc(x.v, ty)
                          : b.CreateSExtOrTrunc(x.v, ty);
}

llvm::Value *intConst(llvm::Type *ty, int64_t v) {
  return llvm::ConstantInt::get(ty, v, /*isSigned=*/true);
}

/// An attribute bound as a constant of the integer type, clamped to its
/// range (Clip's float bounds on integer inputs).
llvm::Value *intBound(llvm::Type *ty, DType dt, float bound) {
  unsigned w = ty->getIntegerBitWidth();
  double lo = isUnsigned(dt) ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = isUnsigned(dt) ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  double v = std::min(std::max(double(bound), lo), hi);
  return intConst(ty, static_cast<int64_t>(v));
}

llvm::Value *intMax(KernelBuilder &kb, bool isMax, DType dt, llvm::Value *a,
                    llvm::Value *c) {
  auto &b = kb.b;
  llvm::Value *gt = isUnsigned(dt) ? b.CreateICmpUGT(a, c) : b.CreateICmpSGT(a, c);
  return isMax ? b.CreateSelect(gt, a, c) : b.CreateSelect(gt, c, a);
}

/// Integer x / y that never traps: x / 0 is 0, MIN / -1 wraps to MIN.
llvm::Value *intDiv(KernelBuilder &kb, DType dt, llvm::Value *x,
                    llvm::Value *y, bool remainder) {
  auto &b = kb.b;
  llvm::Type *ty = x->getType();
  llvm::Value *zero = intConst(ty, 0), *one = intConst(ty, 1);
  llvm::Value *isZero = b.CreateICmpEQ(y, zero);
  if (isUnsigned(dt)) {
    llvm::Value *safe = b.CreateSelect(isZero, one, y);
    llvm::Value *r = remainder ? b.CreateURem(x, safe) : b.CreateUDiv(x, safe);
    return b.CreateSelect(isZero, zero, r);
  }
  llvm::Value *isMinusOne = b.CreateICmpEQ(y, intConst(ty, -1));
  llvm::Value *safe =
      b.CreateSelect(b.CreateOr(isZero, isMinusOne), one, y);
  llvm::Value *r = remainder ? b.CreateSRem(x, safe) : b.CreateSDiv(x, safe);
  llvm::Value *byMinusOne = remainder ? zero : b.CreateSub(zero, x);
  return b.CreateSelect(isMinusOne, byMinusOne,
                        b.CreateSelect(isZero, zero, r));
}

/// base^e for integers by squaring (unrolled over the exponent's bits);
/// negative exponents give 1, -1 or 0 as the reference does.
llvm::Value *intPow(KernelBuilder &kb, llvm::Value *base, llvm::Value *e) {
  auto &b = kb.b;
  llvm::Type *ty = base->getType();
  e = b.CreateSExtOrTrunc(e, ty);
  unsigned w = ty->getIntegerBitWidth();
  llvm::Value *result = intConst(ty, 1), *sq = base;
  for (unsigned bit = 0; bit + 1 < w; ++bit) {
    llvm::Value *set = b.CreateICmpNE(
        b.CreateAnd(b.CreateLShr(e, bit), intConst(ty, 1)), intConst(ty, 0));
    result = b.CreateSelect(set, b.CreateMul(result, sq), result);
    sq = b.CreateMul(sq, sq);
  }
  llvm::Value *zero = intConst(ty, 0), *one = intConst(ty, 1);
  llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(e, one), zero);
  llvm::Value *negative =
      b.CreateSelect(b.CreateICmpEQ(base, one), one,
                     b.CreateSelect(b.CreateICmpEQ(base, intConst(ty, -1)),
                                    b.CreateSelect(odd, intConst(ty, -1), one),
                                    zero));
  return b.CreateSelect(b.CreateICmpSLT(e, zero), negative, result);
}

/// The unary float ops: the tests, and every activation record's formula.
llvm::Value *floatUnary(KernelBuilder &kb, const Node &n, llvm::Value *x) {
  ScalarMath m(kb);
  auto &b = kb.b;
  switch (n.getKind()) {
  case OpKind::IsNaN: return boolToI8(kb, m.isNaN(x));
  case OpKind::IsInf: {
    llvm::Value *inf = m.c(std::numeric_limits<float>::infinity());
    llvm::Value *pos = b.CreateFCmpOEQ(x, inf);
    llvm::Value *neg = b.CreateFCmpOEQ(x, b.CreateFNeg(inf));
    llvm::Value *r = b.getFalse();
    if (IsInfView(n).detectPositive())
      r = b.CreateOr(r, pos);
    if (IsInfView(n).detectNegative())
      r = b.CreateOr(r, neg);
    return boolToI8(kb, r);
  }
  default:
    return emitActivation(kb, *activationOf(n), x);
  }
}

llvm::Value *intUnary(KernelBuilder &kb, const Node &n, const Operand &x) {
  auto &b = kb.b;
  llvm::Type *ty = x.v->getType();
  llvm::Value *zero = intConst(ty, 0);
  switch (n.getKind()) {
  case OpKind::Abs:
    return isUnsigned(x.dt) ? x.v
                            : b.CreateSelect(b.CreateICmpSLT(x.v, zero),
                                             b.CreateSub(zero, x.v), x.v);
  case OpKind::Neg: return b.CreateSub(zero, x.v);
  case OpKind::Sign: {
    llvm::Value *pos = isUnsigned(x.dt) ? b.CreateICmpUGT(x.v, zero)
                                        : b.CreateICmpSGT(x.v, zero);
    return b.CreateSelect(pos, intConst(ty, 1),
                          b.CreateSelect(b.CreateICmpEQ(x.v, zero), zero,
                                         intConst(ty, -1)));
  }
  case OpKind::Not: return boolToI8(kb, b.CreateICmpEQ(x.v, zero));
  case OpKind::Relu:
    return b.CreateSelect(b.CreateICmpSLT(x.v, zero), zero, x.v);
  case OpKind::Clip: {
    llvm::Value *lo = intBound(ty, x.dt, ClipView(n).min());
    llvm::Value *hi = intBound(ty, x.dt, ClipView(n).max());
    return intMax(kb, false, x.dt, intMax(kb, true, x.dt, x.v, lo), hi);
  }
  default: // Shrink: float thresholds, truncated back.
    return convert(kb, {floatUnary(kb, n, toF32(kb, x)), DType::F32}, x.dt);
  }
}

llvm::Value *compare(KernelBuilder &kb, OpKind k, const Operand &x,
                     const Operand &y) {
  auto &b = kb.b;
  using P = llvm::CmpInst::Predicate;
  bool f = isFloat(x.dt), u = isUnsigned(x.dt);
  P p;
  switch (k) {
  case OpKind::Equal: p = f ? P::FCMP_OEQ : P::ICMP_EQ; break;
  case OpKind::Less: p = f ? P::FCMP_OLT : u ? P::ICMP_ULT : P::ICMP_SLT; break;
  case OpKind::LessOrEqual:
    p = f ? P::FCMP_OLE : u ? P::ICMP_ULE : P::ICMP_SLE;
    break;
  case OpKind::Greater:
    p = f ? P::FCMP_OGT : u ? P::ICMP_UGT : P::ICMP_SGT;
    break;
  default: p = f ? P::FCMP_OGE : u ? P::ICMP_UGE : P::ICMP_SGE; break;
  }
  return boolToI8(kb, f ? b.CreateFCmp(p, x.v, y.v) : b.CreateICmp(p, x.v, y.v));
}

/// The result of one element in the output's computation type.
llvm::Value *scalarOp(KernelBuilder &kb, const Node &n,
                      llvm::ArrayRef<Operand> xs, DType out) {
  auto &b = kb.b;
  ScalarMath m(kb);
  OpKind k = n.getKind();
  const Operand &x = xs[0];
  bool f = isFloat(x.dt);
  switch (k) {
  case OpKind::Cast: return convert(kb, x, out);
  case OpKind::Where:
    return b.CreateSelect(b.CreateICmpNE(x.v, intConst(x.v->getType(), 0)),
                          xs[1].v, xs[2].v);
  case OpKind::Add: return f ? b.CreateFAdd(x.v, xs[1].v) : b.CreateAdd(x.v, xs[1].v);
  case OpKind::Sub: return f ? b.CreateFSub(x.v, xs[1].v) : b.CreateSub(x.v, xs[1].v);
  case OpKind::Mul: return f ? b.CreateFMul(x.v, xs[1].v) : b.CreateMul(x.v, xs[1].v);
  case OpKind::Div:
    return f ? b.CreateFDiv(x.v, xs[1].v)
             : intDiv(kb, x.dt, x.v, xs[1].v, /*remainder=*/false);
  case OpKind::Pow:
    if (f || isFloat(xs[1].dt)) {
      llvm::Value *r = m.pow(toF32(kb, x), toF32(kb, xs[1]));
      return f ? r : convert(kb, {r, DType::F32}, out);
    }
    return intPow(kb, x.v, xs[1].v);
  case OpKind::Mod: {
    if (f) { // fmod: x - trunc(x / y) * y
      llvm::Value *q = m.trunc(b.CreateFDiv(x.v, xs[1].v));
      return b.CreateFSub(x.v, b.CreateFMul(q, xs[1].v));
    }
    llvm::Value *r = intDiv(kb, x.dt, x.v, xs[1].v, /*remainder=*/true);
    if (ModView(n).fmod() || isUnsigned(x.dt))
      return r;
    // The divisor's sign, as Python's %.
    llvm::Value *zero = intConst(r->getType(), 0);
    llvm::Value *fix = b.CreateAnd(
        b.CreateICmpNE(r, zero),
        b.CreateICmpSLT(b.CreateXor(r, xs[1].v), zero));
    return b.CreateSelect(fix, b.CreateAdd(r, xs[1].v), r);
  }
  case OpKind::BitShift: {
    llvm::Type *ty = x.v->getType();
    llvm::Value *tooFar = b.CreateICmpUGE(
        xs[1].v, intConst(ty, ty->getIntegerBitWidth()));
    llvm::Value *s = b.CreateSelect(tooFar, intConst(ty, 0), xs[1].v);
    llvm::Value *r = BitShiftView(n).direction() == "LEFT" ? b.CreateShl(x.v, s)
                                                           : b.CreateLShr(x.v, s);
    return b.CreateSelect(tooFar, intConst(ty, 0), r);
  }
  case OpKind::Max:
  case OpKind::Min:
  case OpKind::Sum:
  case OpKind::Mean: {
    bool isMax = k == OpKind::Max;
    llvm::Value *acc = x.v;
    for (const Operand &y : xs.drop_front()) {
      if (k == OpKind::Sum || k == OpKind::Mean)
        acc = f ? b.CreateFAdd(acc, y.v) : b.CreateAdd(acc, y.v);
      else if (!f)
        acc = intMax(kb, isMax, x.dt, acc, y.v);
      else // numpy.maximum: a NaN operand wins.
        acc = b.CreateSelect(
            b.CreateOr(isMax ? b.CreateFCmpOGT(acc, y.v)
                             : b.CreateFCmpOLT(acc, y.v),
                       m.isNaN(acc)),
            acc, y.v);
    }
    return k == OpKind::Mean ? b.CreateFDiv(acc, m.c(double(xs.size()))) : acc;
  }
  case OpKind::Equal:
  case OpKind::Less:
  case OpKind::LessOrEqual:
  case OpKind::Greater:
  case OpKind::GreaterOrEqual:
    return compare(kb, k, x, xs[1]);
  case OpKind::And: return b.CreateAnd(x.v, xs[1].v);
  case OpKind::Or: return b.CreateOr(x.v, xs[1].v);
  case OpKind::Xor: return b.CreateXor(x.v, xs[1].v);
  case OpKind::PRelu:
    return b.CreateSelect(b.CreateFCmpOLT(x.v, m.c(0.0)),
                          b.CreateFMul(xs[1].v, x.v), x.v);
  default:
    return f ? floatUnary(kb, n, x.v) : intUnary(kb, n, x);
  }
}

} // namespace

llvm::Error emitElementwise(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  // Every loaded operand, in KernelArgs order: the node's inputs, then each
  // fused node's inputs other than the previous result.
  llvm::SmallVector<const Value *, 4> operands(n.getInputs());
  const Node *prev = &n;
  for (const Node *m : args.fused) {
    for (const Value *v : m->getInputs())
      if (v != prev->getOutput())
        operands.push_back(v);
    prev = m;
  }
  const TensorType &ot = prev->getOutput()->getType();
  int64_t count = ot.numElements();
  // Without broadcasting (scalars aside) one flat loop does.
  bool flat = true;
  llvm::SmallVector<Shape, 3> strides;
  for (const Value *in : operands) {
    int64_t elems = in->getType().numElements();
    flat &= elems == count || elems == 1;
    Shape s(ot.rank(), 0);
    Shape own = rowMajorStrides(in->getType().shape);
    size_t lead = ot.rank() - in->getType().rank();
    for (size_t d = 0; d < in->getType().rank(); ++d)
      s[lead + d] = in->getType().shape[d] == 1 ? 0 : own[d];
    strides.push_back(std::move(s));
  }
  auto body = [&](llvm::ArrayRef<llvm::Value *> ivs, llvm::Value *outIndex) {
    unsigned next = 0;
    auto load = [&]() -> Operand {
      unsigned i = next++;
      const TensorType &it = operands[i]->getType();
      llvm::Value *at = flat ? (it.numElements() == 1 ? kb.idx(0) : outIndex)
                             : kb.linear(ivs, strides[i]);
      return {loadElem(kb, args.inputs[i], at, it.dtype), it.dtype};
    };
    llvm::SmallVector<Operand, 3> xs;
    for (unsigned i = 0; i < n.getNumInputs(); ++i)
      xs.push_back(load());
    DType dt = n.getOutput()->getType().dtype;
    llvm::Value *result = scalarOp(kb, n, xs, dt);
    const Node *last = &n;
    for (const Node *m : args.fused) {
      xs.clear();
      for (const Value *v : m->getInputs())
        xs.push_back(v == last->getOutput() ? Operand{result, dt} : load());
      dt = m->getOutput()->getType().dtype;
      result = scalarOp(kb, *m, xs, dt);
      last = m;
    }
    storeElem(kb, result, args.outputs[0], outIndex, ot.dtype);
  };
  if (flat) {
    kb.loop(count, [&](llvm::Value *i) { body({}, i); });
    return llvm::Error::success();
  }
  Shape extents = ot.shape;
  strides.push_back(rowMajorStrides(ot.shape));
  mergeDimensions(extents, strides);
  Shape outStrides = strides.pop_back_val();
  kb.innerNest(extents, [&](llvm::ArrayRef<llvm::Value *> ivs) {
    body(ivs, kb.linear(ivs, outStrides));
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
