//===- ScalarMath.cpp - libm-free math functions in LLVM IR ---------------===//
//
// Polynomials are the Cephes single-precision ones (sinf, cosf, atanf) and
// Eigen's rational form for erf; logarithms use the atanh series of
// (m-1)/(m+1). Rounding uses the 2^23 trick, which is exact in the default
// rounding mode because no fast-math flag lets LLVM fold (x + c) - c.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ScalarMath.h"

#include <cmath>
#include <limits>

namespace kiln {
namespace codegen {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kTwo23 = 8388608.0;
} // namespace

llvm::Value *ScalarMath::c(double v) {
  return llvm::ConstantFP::get(b.getFloatTy(), v);
}
llvm::Value *ScalarMath::i32(uint32_t v) { return b.getInt32(v); }
llvm::Value *ScalarMath::bits(llvm::Value *x) {
  return b.CreateBitCast(x, b.getInt32Ty());
}
llvm::Value *ScalarMath::fromBits(llvm::Value *i) {
  return b.CreateBitCast(i, b.getFloatTy());
}

llvm::Value *ScalarMath::poly(llvm::Value *x,
                              llvm::ArrayRef<double> coeffsHighFirst) {
  llvm::Value *p = c(coeffsHighFirst.front());
  for (double k : coeffsHighFirst.drop_front())
    p = kb.fma(p, x, c(k));
  return p;
}

//===----------------------------------------------------------------------===//
// Bits and rounding
//===----------------------------------------------------------------------===//

llvm::Value *ScalarMath::fabs(llvm::Value *x) {
  return fromBits(b.CreateAnd(bits(x), i32(0x7fffffff)));
}

llvm::Value *ScalarMath::copysign(llvm::Value *mag, llvm::Value *sgn) {
  return fromBits(b.CreateOr(b.CreateAnd(bits(mag), i32(0x7fffffff)),
                             b.CreateAnd(bits(sgn), i32(0x80000000))));
}

llvm::Value *ScalarMath::isNaN(llvm::Value *x) {
  return b.CreateFCmpUNO(x, x);
}

llvm::Value *ScalarMath::isFinite(llvm::Value *x) {
  return b.CreateFCmpOLT(fabs(x), c(std::numeric_limits<float>::infinity()));
}

/// |x| >= 2^23 is already an integer (and NaN stays NaN); below it the value
/// fits an i32, so fptosi is exact and never poison where it is selected.
llvm::Value *ScalarMath::trunc(llvm::Value *x) {
  llvm::Value *small = b.CreateFCmpOLT(fabs(x), c(kTwo23));
  llvm::Value *t =
      b.CreateSIToFP(b.CreateFPToSI(x, b.getInt32Ty()), b.getFloatTy());
  return b.CreateSelect(small, copysign(t, x), x);
}

llvm::Value *ScalarMath::floor(llvm::Value *x) {
  llvm::Value *t = trunc(x);
  return b.CreateSelect(b.CreateFCmpOGT(t, x), b.CreateFSub(t, c(1.0)), t);
}

llvm::Value *ScalarMath::ceil(llvm::Value *x) {
  llvm::Value *t = trunc(x);
  return b.CreateSelect(b.CreateFCmpOLT(t, x), b.CreateFAdd(t, c(1.0)), t);
}

llvm::Value *ScalarMath::roundEven(llvm::Value *x) {
  llvm::Value *ax = fabs(x);
  llvm::Value *r = b.CreateFSub(b.CreateFAdd(ax, c(kTwo23)), c(kTwo23));
  return b.CreateSelect(b.CreateFCmpOLT(ax, c(kTwo23)), copysign(r, x), x);
}

//===----------------------------------------------------------------------===//
// Powers and logarithms
//===----------------------------------------------------------------------===//

/// Newton's iteration from the classic bit-level estimate: three steps take
/// its 3.5% error below float precision.
llvm::Value *ScalarMath::sqrt(llvm::Value *x) {
  llvm::Value *y =
      fromBits(b.CreateAdd(i32(0x1fbd1df5), b.CreateLShr(bits(x), 1)));
  for (int i = 0; i < 3; ++i)
    y = b.CreateFMul(c(0.5), b.CreateFAdd(y, b.CreateFDiv(x, y)));
  // 0, inf and NaN are their own roots; negative numbers have none.
  llvm::Value *regular = b.CreateAnd(
      b.CreateFCmpOGT(x, c(0.0)),
      b.CreateFCmpOLT(x, c(std::numeric_limits<float>::infinity())));
  llvm::Value *special = b.CreateSelect(
      b.CreateFCmpOLT(x, c(0.0)), c(std::numeric_limits<float>::quiet_NaN()),
      x);
  return b.CreateSelect(regular, y, special);
}

/// x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s) with
/// s = (m-1)/(m+1), |s| <= 0.172, by its series to s^9.
llvm::Value *ScalarMath::log(llvm::Value *x) {
  // Subnormals are scaled into the normal range first.
  llvm::Value *sub = b.CreateFCmpOLT(x, c(1.17549435e-38));
  llvm::Value *xs = b.CreateSelect(sub, b.CreateFMul(x, c(kTwo23)), x);
  llvm::Value *ix = bits(xs);
  llvm::Value *e = b.CreateSub(b.CreateAnd(b.CreateLShr(ix, 23), i32(0xff)),
                               i32(127));
  e = b.CreateSelect(sub, b.CreateSub(e, i32(23)), e);
  llvm::Value *m =
      fromBits(b.CreateOr(b.CreateAnd(ix, i32(0x007fffff)), i32(0x3f800000)));
  llvm::Value *big = b.CreateFCmpOGT(m, c(1.41421356237));
  m = b.CreateSelect(big, b.CreateFMul(m, c(0.5)), m);
  e = b.CreateSelect(big, b.CreateAdd(e, i32(1)), e);
  llvm::Value *s =
      b.CreateFDiv(b.CreateFSub(m, c(1.0)), b.CreateFAdd(m, c(1.0)));
  llvm::Value *s2 = b.CreateFMul(s, s);
  llvm::Value *series =
      poly(s2, {1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3, 1.0});
  llvm::Value *logm = b.CreateFMul(b.CreateFMul(c(2.0), s), series);
  llvm::Value *ef = b.CreateSIToFP(e, b.getFloatTy());
  llvm::Value *r = b.CreateFAdd(b.CreateFMul(ef, c(0.693359375)),
                                b.CreateFAdd(b.CreateFMul(ef, c(-2.12194440e-4)),
                                             logm));
  // Zero, negatives, infinity and NaN.
  llvm::Value *inf = c(std::numeric_limits<float>::infinity());
  r = b.CreateSelect(b.CreateFCmpOEQ(x, inf), inf, r);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, c(0.0)), c(-INFINITY), r);
  return b.CreateSelect(b.CreateFCmpULT(x, c(0.0)),
                        c(std::numeric_limits<float>::quiet_NaN()), r);
}

/// Kahan's log1p: log(u) * x / (u - 1) with u = 1 + x corrects the rounding
/// of u.
llvm::Value *ScalarMath::log1p(llvm::Value *x) {
  llvm::Value *u = b.CreateFAdd(c(1.0), x);
  llvm::Value *d = b.CreateFSub(u, c(1.0));
  llvm::Value *r = b.CreateFDiv(b.CreateFMul(log(u), x), d);
  r = b.CreateSelect(b.CreateFCmpOEQ(d, c(0.0)), x, r);
  return b.CreateSelect(b.CreateFCmpOGT(x, c(1e30)), log(x), r);
}

llvm::Value *ScalarMath::expm1(llvm::Value *x) {
  // Taylor to x^7 below 1/4 (error < 3e-9 relative), e^x - 1 above.
  llvm::Value *series =
      b.CreateFMul(x, poly(x, {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
                               1.0 / 6, 0.5, 1.0}));
  llvm::Value *direct = b.CreateFSub(kb.exp(x), c(1.0));
  return b.CreateSelect(b.CreateFCmpOLT(fabs(x), c(0.25)), series, direct);
}

llvm::Value *ScalarMath::pow(llvm::Value *x, llvm::Value *y) {
  llvm::Value *ay = fabs(y);
  llvm::Value *yInt = b.CreateFCmpOEQ(floor(y), y);
  // y odd: y/2 is not an integer (only possible below 2^24).
  llvm::Value *half = b.CreateFMul(y, c(0.5));
  llvm::Value *yOdd = b.CreateAnd(yInt, b.CreateFCmpONE(floor(half), half));
  llvm::Value *mag = kb.exp(b.CreateFMul(y, log(fabs(x))));
  llvm::Value *negX = b.CreateFCmpOLT(x, c(0.0));
  llvm::Value *r = b.CreateSelect(b.CreateAnd(negX, yOdd), b.CreateFNeg(mag),
                                  mag);
  llvm::Value *nan = c(std::numeric_limits<float>::quiet_NaN());
  r = b.CreateSelect(b.CreateAnd(negX, b.CreateNot(yInt)), nan, r);
  // x = 0: 0 for y > 0 (signed for odd y), inf for y < 0.
  llvm::Value *inf = c(std::numeric_limits<float>::infinity());
  llvm::Value *zeroX = b.CreateFCmpOEQ(x, c(0.0));
  llvm::Value *atZero = b.CreateSelect(b.CreateFCmpOGT(y, c(0.0)), c(0.0), inf);
  atZero = b.CreateSelect(yOdd, copysign(atZero, x), atZero);
  r = b.CreateSelect(zeroX, atZero, r);
  // 1^y and (-1)^(+-inf) are 1, as in C.
  llvm::Value *one = b.CreateOr(
      b.CreateFCmpOEQ(x, c(1.0)),
      b.CreateAnd(b.CreateFCmpOEQ(x, c(-1.0)), b.CreateFCmpOEQ(ay, inf)));
  r = b.CreateSelect(one, c(1.0), r);
  // Anything to the power 0 is 1, even NaN.
  return b.CreateSelect(b.CreateFCmpOEQ(y, c(0.0)), c(1.0), r);
}

//===----------------------------------------------------------------------===//
// Trigonometric, hyperbolic and error functions
//===----------------------------------------------------------------------===//

ScalarMath::Reduced ScalarMath::reduceTrig(llvm::Value *x) {
  // q = round(x * 2/pi), kept where an i32 holds it; r = x - q*pi/2 with
  // pi/2 in three parts (Cody & Waite).
  llvm::Value *q = roundEven(b.CreateFMul(x, c(2.0 / kPi)));
  q = b.CreateSelect(b.CreateFCmpOLT(fabs(q), c(1e9)), q, c(0.0));
  llvm::Value *r = b.CreateFSub(x, b.CreateFMul(q, c(1.5703125)));
  r = b.CreateFSub(r, b.CreateFMul(q, c(4.837512969970703125e-4)));
  r = b.CreateFSub(r, b.CreateFMul(q, c(7.54978995489188216e-8)));
  llvm::Value *r2 = b.CreateFMul(r, r);
  llvm::Value *sinR = b.CreateFAdd(
      r, b.CreateFMul(b.CreateFMul(r, r2),
                      poly(r2, {-1.9515295891e-4, 8.3321608736e-3,
                                -1.6666654611e-1})));
  llvm::Value *cosR = b.CreateFAdd(
      b.CreateFSub(c(1.0), b.CreateFMul(c(0.5), r2)),
      b.CreateFMul(b.CreateFMul(r2, r2),
                   poly(r2, {2.443315711809948e-5, -1.388731625493765e-3,
                             4.166664568298827e-2})));
  return {sinR, cosR, b.CreateFPToSI(q, b.getInt32Ty())};
}

llvm::Value *ScalarMath::byQuadrant(llvm::Value *q, llvm::Value *v0,
                                    llvm::Value *v1, llvm::Value *v2,
                                    llvm::Value *v3) {
  llvm::Value *k = b.CreateAnd(q, i32(3));
  llvm::Value *r = b.CreateSelect(b.CreateICmpEQ(k, i32(1)), v1, v0);
  r = b.CreateSelect(b.CreateICmpEQ(k, i32(2)), v2, r);
  return b.CreateSelect(b.CreateICmpEQ(k, i32(3)), v3, r);
}

llvm::Value *ScalarMath::sin(llvm::Value *x) {
  Reduced t = reduceTrig(x);
  llvm::Value *r = byQuadrant(t.quadrant, t.sinR, t.cosR, b.CreateFNeg(t.sinR),
                              b.CreateFNeg(t.cosR));
  return b.CreateSelect(isFinite(x), r,
                        c(std::numeric_limits<float>::quiet_NaN()));
}

llvm::Value *ScalarMath::cos(llvm::Value *x) {
  Reduced t = reduceTrig(x);
  llvm::Value *r = byQuadrant(t.quadrant, t.cosR, b.CreateFNeg(t.sinR),
                              b.CreateFNeg(t.cosR), t.sinR);
  return b.CreateSelect(isFinite(x), r,
                        c(std::numeric_limits<float>::quiet_NaN()));
}

llvm::Value *ScalarMath::tan(llvm::Value *x) {
  Reduced t = reduceTrig(x);
  llvm::Value *odd = b.CreateICmpEQ(b.CreateAnd(t.quadrant, i32(1)), i32(1));
  llvm::Value *r =
      b.CreateSelect(odd, b.CreateFNeg(b.CreateFDiv(t.cosR, t.sinR)),
                     b.CreateFDiv(t.sinR, t.cosR));
  return b.CreateSelect(isFinite(x), r,
                        c(std::numeric_limits<float>::quiet_NaN()));
}

llvm::Value *ScalarMath::atan(llvm::Value *x) {
  llvm::Value *ax = fabs(x);
  llvm::Value *far = b.CreateFCmpOGT(ax, c(2.414213562373095));
  llvm::Value *mid = b.CreateFCmpOGT(ax, c(0.4142135623730950));
  llvm::Value *t = b.CreateSelect(
      far, b.CreateFDiv(c(-1.0), ax),
      b.CreateSelect(mid,
                     b.CreateFDiv(b.CreateFSub(ax, c(1.0)),
                                  b.CreateFAdd(ax, c(1.0))),
                     ax));
  llvm::Value *y0 =
      b.CreateSelect(far, c(kPi / 2), b.CreateSelect(mid, c(kPi / 4), c(0.0)));
  llvm::Value *z = b.CreateFMul(t, t);
  llvm::Value *p = poly(z, {8.05374449538e-2, -1.38776856032e-1,
                            1.99777106478e-1, -3.33329491539e-1});
  llvm::Value *y =
      b.CreateFAdd(y0, b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, z), t), t));
  return copysign(y, x);
}

llvm::Value *ScalarMath::asin(llvm::Value *x) {
  llvm::Value *d = sqrt(b.CreateFMul(b.CreateFSub(c(1.0), x),
                                     b.CreateFAdd(c(1.0), x)));
  return atan(b.CreateFDiv(x, d));
}

llvm::Value *ScalarMath::acos(llvm::Value *x) {
  llvm::Value *q =
      b.CreateFDiv(b.CreateFSub(c(1.0), x), b.CreateFAdd(c(1.0), x));
  return b.CreateFMul(c(2.0), atan(sqrt(q)));
}

llvm::Value *ScalarMath::sinh(llvm::Value *x) {
  llvm::Value *ax = fabs(x);
  llvm::Value *x2 = b.CreateFMul(x, x);
  llvm::Value *series = b.CreateFMul(
      x, poly(x2, {1.0 / 5040, 1.0 / 120, 1.0 / 6, 1.0}));
  llvm::Value *e = kb.exp(ax);
  llvm::Value *direct = copysign(
      b.CreateFMul(c(0.5), b.CreateFSub(e, b.CreateFDiv(c(1.0), e))), x);
  return b.CreateSelect(b.CreateFCmpOLT(ax, c(0.5)), series, direct);
}

llvm::Value *ScalarMath::cosh(llvm::Value *x) {
  llvm::Value *e = kb.exp(fabs(x));
  return b.CreateFMul(c(0.5), b.CreateFAdd(e, b.CreateFDiv(c(1.0), e)));
}

llvm::Value *ScalarMath::asinh(llvm::Value *x) {
  llvm::Value *ax = fabs(x);
  llvm::Value *ax2 = b.CreateFMul(ax, ax);
  llvm::Value *arg = b.CreateFAdd(
      ax, b.CreateFDiv(ax2, b.CreateFAdd(c(1.0), sqrt(b.CreateFAdd(c(1.0), ax2)))));
  llvm::Value *r = b.CreateSelect(b.CreateFCmpOGT(ax, c(1e18)),
                                  b.CreateFAdd(log(ax), c(kLn2)), log1p(arg));
  return copysign(r, x);
}

llvm::Value *ScalarMath::acosh(llvm::Value *x) {
  llvm::Value *d = sqrt(b.CreateFSub(b.CreateFMul(x, x), c(1.0)));
  return b.CreateSelect(b.CreateFCmpOGT(x, c(1e18)),
                        b.CreateFAdd(log(x), c(kLn2)),
                        log(b.CreateFAdd(x, d)));
}

llvm::Value *ScalarMath::atanh(llvm::Value *x) {
  llvm::Value *q =
      b.CreateFDiv(b.CreateFMul(c(2.0), x), b.CreateFSub(c(1.0), x));
  return b.CreateFMul(c(0.5), log1p(q));
}

/// x p(x^2) / q(x^2), the rational minimax form on [-4, 4] that Eigen and
/// XLA use (absolute error under 5e-7 there), and +-1 beyond, where erf
/// rounds to +-1 in f32; NaN stays NaN. One division and 11 FMAs: the
/// Maclaurin series and Abramowitz & Stegun 7.1.26 it replaces computed
/// both branches and an exp, twice the operations.
llvm::Value *ScalarMath::erf(llvm::Value *x) {
  llvm::Value *x2 = b.CreateFMul(x, x);
  llvm::Value *p = b.CreateFMul(
      x, poly(x2, {-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                   -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                   -1.60960333262415e-02}));
  llvm::Value *q =
      poly(x2, {-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                -7.37332916720468e-03, -1.42647390514189e-02});
  return b.CreateSelect(b.CreateFCmpOGE(fabs(x), c(4.0)), copysign(c(1.0), x),
                        b.CreateFDiv(p, q));
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

llvm::Value *ScalarMath::halfToFloat(llvm::Value *h16) {
  llvm::Value *h = b.CreateZExt(h16, b.getInt32Ty());
  llvm::Value *sign = b.CreateShl(b.CreateAnd(h, i32(0x8000)), 16);
  llvm::Value *exp = b.CreateAnd(b.CreateLShr(h, 10), i32(0x1f));
  llvm::Value *mant = b.CreateAnd(h, i32(0x3ff));
  llvm::Value *normal = b.CreateOr(b.CreateShl(b.CreateAdd(exp, i32(112)), 23),
                                   b.CreateShl(mant, 13));
  llvm::Value *special = b.CreateOr(i32(0x7f800000), b.CreateShl(mant, 13));
  // Subnormal halves are mant * 2^-24, exact in f32.
  llvm::Value *subnormal = bits(b.CreateFMul(
      b.CreateUIToFP(mant, b.getFloatTy()), c(5.9604644775390625e-8)));
  llvm::Value *mag = b.CreateSelect(
      b.CreateICmpEQ(exp, i32(0)), subnormal,
      b.CreateSelect(b.CreateICmpEQ(exp, i32(0x1f)), special, normal));
  return fromBits(b.CreateOr(sign, mag));
}

/// Round to nearest even as in F. Giesen's float_to_half_fast3_rtne.
llvm::Value *ScalarMath::floatToHalf(llvm::Value *x) {
  llvm::Value *u = bits(x);
  llvm::Value *sign = b.CreateAnd(b.CreateLShr(u, 16), i32(0x8000));
  llvm::Value *a = b.CreateAnd(u, i32(0x7fffffff));
  llvm::Value *nanOrInf = b.CreateSelect(b.CreateICmpUGT(a, i32(0x7f800000)),
                                         i32(0x7e00), i32(0x7c00));
  // Below 2^-14 the result is subnormal: adding 0.5 puts the rounded
  // mantissa in the low bits.
  llvm::Value *sub = b.CreateSub(
      bits(b.CreateFAdd(fromBits(a), c(0.5))), i32(0x3f000000));
  llvm::Value *odd = b.CreateAnd(b.CreateLShr(a, 13), i32(1));
  llvm::Value *normal = b.CreateLShr(
      b.CreateAdd(b.CreateAdd(a, i32(0xc8000fff)), odd), 13);
  llvm::Value *mag = b.CreateSelect(
      b.CreateICmpUGE(a, i32(0x7f800000)), nanOrInf,
      b.CreateSelect(b.CreateICmpUGE(a, i32(0x477ff000)), i32(0x7c00),
                     b.CreateSelect(b.CreateICmpULT(a, i32(0x38800000)), sub,
                                    normal)));
  return b.CreateTrunc(b.CreateOr(sign, mag), b.getInt16Ty());
}

llvm::Value *ScalarMath::floatToInt(llvm::Value *x, llvm::Type *ty,
                                    bool isUnsigned) {
  unsigned width = ty->getIntegerBitWidth();
  llvm::APInt lo = isUnsigned ? llvm::APInt::getMinValue(width)
                              : llvm::APInt::getSignedMinValue(width);
  llvm::APInt hi = isUnsigned ? llvm::APInt::getMaxValue(width)
                              : llvm::APInt::getSignedMaxValue(width);
  double loF = isUnsigned ? lo.roundToDouble(false) : lo.roundToDouble(true);
  double hiF = isUnsigned ? hi.roundToDouble(false) : hi.roundToDouble(true);
  // x may be f32 or f64: the bounds take its type.
  auto cx = [&](double v) { return llvm::ConstantFP::get(x->getType(), v); };
  llvm::Value *inRange =
      b.CreateAnd(b.CreateFCmpOGT(x, cx(loF)), b.CreateFCmpOLT(x, cx(hiF)));
  // Clamped before converting, so the conversion is never poison.
  llvm::Value *safe = b.CreateSelect(inRange, x, cx(0.0));
  llvm::Value *v = isUnsigned ? b.CreateFPToUI(safe, ty) : b.CreateFPToSI(safe, ty);
  v = b.CreateSelect(b.CreateFCmpOLE(x, cx(loF)), llvm::ConstantInt::get(ty, lo),
                     v);
  v = b.CreateSelect(b.CreateFCmpOGE(x, cx(hiF)), llvm::ConstantInt::get(ty, hi),
                     v);
  return b.CreateSelect(isNaN(x), llvm::ConstantInt::get(ty, 0), v);
}

} // namespace codegen
} // namespace kiln
