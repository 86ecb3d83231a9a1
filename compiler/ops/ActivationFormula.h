//===- ActivationFormula.h - The activations' formulas, once ---*- C++ -*-===//
//
// applyActivation expands every formula of compiler/ops/Activations.def over
// a scalar algebra M, which supplies M::Value, constants (c), select, min,
// max and the elementary functions. The interpreter instantiates it on
// double (DoubleAlgebra, below); codegen on LLVM values (IRAlgebra in
// compiler/codegen/kernels), so a formula cannot mean two things.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_ACTIVATIONFORMULA_H
#define KILN_OPS_ACTIVATIONFORMULA_H

#include "compiler/graph/Activation.h"

#include <cmath>
#include <limits>

namespace kiln {

template <class M>
typename M::Value applyActivation(M &m, const Activation &a,
                                  typename M::Value x) {
  [[maybe_unused]] llvm::ArrayRef<float> p = a.getParams();
  switch (a.getKind()) {
  case ActivationKind::None:
    return x;
#define NO_PARAMS
#define PARAM(N, D) auto N = m.c(p[0]);
#define PARAMS2(N0, D0, N1, D1)                                                \
  auto N0 = m.c(p[0]);                                                         \
  auto N1 = m.c(p[1]);
#define KILN_ACTIVATION(Name, DTypes, Params, ...)                             \
  case ActivationKind::Name: {                                                 \
    Params return m.lift(__VA_ARGS__);                                         \
  }
#define KILN_FUSED_ACTIVATION(Name, Params, ...)                               \
  KILN_ACTIVATION(Name, , Params, __VA_ARGS__)
#include "compiler/ops/Activations.def"
#undef NO_PARAMS
#undef PARAM
#undef PARAMS2
  }
  return x;
}

/// The interpreter's algebra: plain double arithmetic and libm. min and max
/// are the compiled code's comparisons (a NaN operand gives the other one
/// where the comparison is false), not std::fmin's.
struct DoubleAlgebra {
  using Value = double;
  double c(double v) const { return v; }
  double lift(double v) const { return v; }
  double select(bool cond, double a, double b) const { return cond ? a : b; }
  double max(double a, double b) const { return a > b ? a : b; }
  double min(double a, double b) const { return a < b ? a : b; }
  double abs(double x) const { return std::fabs(x); }
  double exp(double x) const { return std::exp(x); }
  double expm1(double x) const { return std::expm1(x); }
  double log(double x) const { return std::log(x); }
  double log1p(double x) const { return std::log1p(x); }
  double sqrt(double x) const { return std::sqrt(x); }
  double floor(double x) const { return std::floor(x); }
  double ceil(double x) const { return std::ceil(x); }
  /// The default rounding mode's nearbyint: half to even.
  double roundEven(double x) const { return std::nearbyint(x); }
  double erf(double x) const { return std::erf(x); }
  double sin(double x) const { return std::sin(x); }
  double cos(double x) const { return std::cos(x); }
  double tan(double x) const { return std::tan(x); }
  double asin(double x) const { return std::asin(x); }
  double acos(double x) const { return std::acos(x); }
  double atan(double x) const { return std::atan(x); }
  double sinh(double x) const { return std::sinh(x); }
  double cosh(double x) const { return std::cosh(x); }
  double asinh(double x) const { return std::asinh(x); }
  double acosh(double x) const { return std::acosh(x); }
  double atanh(double x) const { return std::atanh(x); }
  double tanh(double x) const { return std::tanh(x); }
};

/// `a` applied to `x` as the interpreter computes it.
inline double applyActivation(const Activation &a, double x) {
  DoubleAlgebra m;
  return applyActivation(m, a, x);
}

} // namespace kiln

#endif
