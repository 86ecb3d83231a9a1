//===- MathOps.cpp - Elementwise unary math ---------------------------------===//
//
// The unary elementwise ops beyond the fused activations: Abs, Neg, Sign
// (numeric), the float functions (Exp, Log, Sqrt, Reciprocal, Floor, Ceil,
// Round, Erf, trigonometric and hyperbolic functions), the parameterized
// activations (Elu, Selu, Celu, HardSigmoid, HardSwish, ThresholdedRelu,
// Softplus, Softsign, Shrink), the tests IsNaN and IsInf, and Not.
// Semantics are those of the newest opsets (Round: half to even).
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpHelpers.h"

#include <cmath>
#include <cstdint>

namespace kiln {
namespace {

/// The attributes an op reads, fetched once per evaluation.
struct UnaryParams {
  double alpha = 0, beta = 0, gamma = 0, bias = 0, lambd = 0;
  bool detectNegative = true, detectPositive = true;
};

UnaryParams paramsOf(const Node &n) {
  UnaryParams p;
  auto f = [&](llvm::StringRef name, double &into) {
    if (n.hasAttr(name))
      into = n.getFloat(name);
  };
  f("alpha", p.alpha);
  f("beta", p.beta);
  f("gamma", p.gamma);
  f("bias", p.bias);
  f("lambd", p.lambd);
  if (n.hasAttr("detect_negative"))
    p.detectNegative = n.getInt("detect_negative") != 0;
  if (n.hasAttr("detect_positive"))
    p.detectPositive = n.getInt("detect_positive") != 0;
  return p;
}

double sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }

double floatUnary(OpKind k, const UnaryParams &p, double x) {
  switch (k) {
  case OpKind::Abs: return std::fabs(x);
  case OpKind::Neg: return -x;
  case OpKind::Sign: return sign(x);
  case OpKind::Exp: return std::exp(x);
  case OpKind::Log: return std::log(x);
  case OpKind::Sqrt: return std::sqrt(x);
  case OpKind::Reciprocal: return 1.0 / x;
  case OpKind::Floor: return std::floor(x);
  case OpKind::Ceil: return std::ceil(x);
  // Half to even, the default rounding mode's nearbyint.
  case OpKind::Round: return std::nearbyint(x);
  case OpKind::Erf: return std::erf(x);
  case OpKind::Sin: return std::sin(x);
  case OpKind::Cos: return std::cos(x);
  case OpKind::Tan: return std::tan(x);
  case OpKind::Asin: return std::asin(x);
  case OpKind::Acos: return std::acos(x);
  case OpKind::Atan: return std::atan(x);
  case OpKind::Sinh: return std::sinh(x);
  case OpKind::Cosh: return std::cosh(x);
  case OpKind::Asinh: return std::asinh(x);
  case OpKind::Acosh: return std::acosh(x);
  case OpKind::Atanh: return std::atanh(x);
  case OpKind::Softplus: return x > 0 ? x + std::log1p(std::exp(-x))
                                      : std::log1p(std::exp(x));
  case OpKind::Softsign: return x / (1 + std::fabs(x));
  case OpKind::Elu: return x < 0 ? p.alpha * std::expm1(x) : x;
  case OpKind::Selu:
    return p.gamma * (x <= 0 ? p.alpha * std::expm1(x) : x);
  case OpKind::Celu:
    return std::max(0.0, x) + std::min(0.0, p.alpha * std::expm1(x / p.alpha));
  case OpKind::HardSigmoid:
    return std::max(0.0, std::min(1.0, p.alpha * x + p.beta));
  case OpKind::HardSwish:
    return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
  case OpKind::ThresholdedRelu: return x > p.alpha ? x : 0.0;
  case OpKind::Shrink:
    return x < -p.lambd ? x + p.bias : x > p.lambd ? x - p.bias : 0.0;
  case OpKind::IsNaN: return std::isnan(x);
  case OpKind::IsInf:
    return std::isinf(x) &&
           (x > 0 ? p.detectPositive : p.detectNegative);
  default: return x;
  }
}

/// Integer semantics, wrapping like two's complement (the result is
/// stored at the dtype's width).
int64_t intUnary(OpKind k, const UnaryParams &p, int64_t x) {
  switch (k) {
  case OpKind::Abs: return x < 0 ? int64_t(0 - uint64_t(x)) : x;
  case OpKind::Neg: return int64_t(0 - uint64_t(x));
  case OpKind::Sign: return x > 0 ? 1 : x < 0 ? -1 : 0;
  case OpKind::Not: return x == 0;
  // Shrink's thresholds are floats; the result truncates as a cast would.
  case OpKind::Shrink:
    return static_cast<int64_t>(floatUnary(k, p, static_cast<double>(x)));
  default: return x;
  }
}

llvm::Error evalMath(const Node &n, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  OpKind k = n.getKind();
  UnaryParams p = paramsOf(n);
  bool floatIn = isFloatDType(x.getDType());
  for (int64_t i = 0, e = y.numElements(); i < e; ++i) {
    if (!floatIn)
      writeInt(y, i, intUnary(k, p, readInt(x, i)));
    else if (y.getDType() == DType::Bool)
      writeInt(y, i, floatUnary(k, p, readFloat(x, i)) != 0);
    else
      writeFloat(y, i, floatUnary(k, p, readFloat(x, i)));
  }
  return llvm::Error::success();
}

/// The dtypes each op takes; the result has the input's dtype except for
/// the tests, which give bool.
llvm::ArrayRef<DType> allowedDTypes(OpKind k) {
  static const DType boolOnly[] = {DType::Bool};
  switch (k) {
  case OpKind::Abs:
  case OpKind::Sign:
  case OpKind::Shrink: return numericDTypes();
  case OpKind::Neg: return signedDTypes();
  case OpKind::Not: return boolOnly;
  default: return floatDTypes();
  }
}

llvm::Expected<TypeList> inferMath(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, allowedDTypes(n.getKind())))
    return e;
  const TensorType &x = inputType(n, 0);
  bool isTest = n.is(OpKind::IsNaN) || n.is(OpKind::IsInf);
  return TypeList{TensorType(isTest ? DType::Bool : x.dtype, x.shape)};
}

OpDef mathDef(OpKind kind, const char *name, std::vector<AttrSpec> attrs = {}) {
  return {kind, name, 1, 1, 1, 1, std::move(attrs), inferMath, evalMath};
}

AttrSpec floatAttr(const char *name, float dflt) {
  return {name, AttrKind::Float, Attr::ofFloat(dflt)};
}

} // namespace

void registerMathOps(std::vector<OpDef> &defs) {
  defs.push_back(mathDef(OpKind::Abs, "Abs"));
  defs.push_back(mathDef(OpKind::Neg, "Neg"));
  defs.push_back(mathDef(OpKind::Sign, "Sign"));
  defs.push_back(mathDef(OpKind::Exp, "Exp"));
  defs.push_back(mathDef(OpKind::Log, "Log"));
  defs.push_back(mathDef(OpKind::Sqrt, "Sqrt"));
  defs.push_back(mathDef(OpKind::Reciprocal, "Reciprocal"));
  defs.push_back(mathDef(OpKind::Floor, "Floor"));
  defs.push_back(mathDef(OpKind::Ceil, "Ceil"));
  defs.push_back(mathDef(OpKind::Round, "Round"));
  defs.push_back(mathDef(OpKind::Erf, "Erf"));
  defs.push_back(mathDef(OpKind::Sin, "Sin"));
  defs.push_back(mathDef(OpKind::Cos, "Cos"));
  defs.push_back(mathDef(OpKind::Tan, "Tan"));
  defs.push_back(mathDef(OpKind::Asin, "Asin"));
  defs.push_back(mathDef(OpKind::Acos, "Acos"));
  defs.push_back(mathDef(OpKind::Atan, "Atan"));
  defs.push_back(mathDef(OpKind::Sinh, "Sinh"));
  defs.push_back(mathDef(OpKind::Cosh, "Cosh"));
  defs.push_back(mathDef(OpKind::Asinh, "Asinh"));
  defs.push_back(mathDef(OpKind::Acosh, "Acosh"));
  defs.push_back(mathDef(OpKind::Atanh, "Atanh"));
  defs.push_back(mathDef(OpKind::Softplus, "Softplus"));
  defs.push_back(mathDef(OpKind::Softsign, "Softsign"));
  defs.push_back(mathDef(OpKind::Elu, "Elu", {floatAttr("alpha", 1.0f)}));
  defs.push_back(mathDef(OpKind::Selu, "Selu",
                         {floatAttr("alpha", 1.67326319217681884765625f),
                          floatAttr("gamma", 1.05070102214813232421875f)}));
  defs.push_back(mathDef(OpKind::Celu, "Celu", {floatAttr("alpha", 1.0f)}));
  defs.push_back(mathDef(OpKind::HardSigmoid, "HardSigmoid",
                         {floatAttr("alpha", 0.2f), floatAttr("beta", 0.5f)}));
  defs.push_back(mathDef(OpKind::HardSwish, "HardSwish"));
  defs.push_back(mathDef(OpKind::ThresholdedRelu, "ThresholdedRelu",
                         {floatAttr("alpha", 1.0f)}));
  defs.push_back(mathDef(OpKind::Shrink, "Shrink",
                         {floatAttr("bias", 0.0f), floatAttr("lambd", 0.5f)}));
  defs.push_back(mathDef(OpKind::IsNaN, "IsNaN"));
  defs.push_back(mathDef(OpKind::IsInf, "IsInf",
                         {{"detect_negative", AttrKind::Int, Attr::ofInt(1)},
                          {"detect_positive", AttrKind::Int, Attr::ofInt(1)}}));
  defs.push_back(mathDef(OpKind::Not, "Not"));
}

} // namespace kiln
