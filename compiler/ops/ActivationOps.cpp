//===- ActivationOps.cpp - The ops of Activations.def -----------------------===//
//
// One OpDef per KILN_ACTIVATION record: its attributes are the record's
// parameters, its type rule its dtypes, and its reference semantics the
// record's formula in double (ActivationFormula.h). Integer inputs, which
// Relu, Clip, Abs, Neg, Sign and Shrink take, are computed exactly in int64;
// quantized int8 ones as TFLite does (Int8Activation.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/ActivationOps.h"

#include "compiler/ops/ActivationFormula.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/TypeRuleHelpers.h"
#include "compiler/ops/QuantizedTypes.h"

namespace kiln {
namespace {

enum class ActivationDTypes { Float, Signed, Numeric };

struct ActivationOp {
  OpKind op;
  ActivationKind kind;
  ActivationDTypes dtypes;
};

const ActivationOp kActivationOps[] = {
#define KILN_ACTIVATION(Name, DTypes, Params, ...)                             \
  {OpKind::Name, ActivationKind::Name, ActivationDTypes::DTypes},
#include "compiler/ops/Activations.def"
};

const ActivationOp *findActivationOp(OpKind kind) {
  for (const ActivationOp &a : kActivationOps)
    if (a.op == kind)
      return &a;
  return nullptr;
}

llvm::ArrayRef<DType> allowedDTypes(ActivationDTypes d) {
  switch (d) {
  case ActivationDTypes::Signed: return signedDTypes();
  case ActivationDTypes::Numeric: return numericDTypes();
  case ActivationDTypes::Float: break;
  }
  return floatDTypes();
}

llvm::Expected<TypeList> inferActivation(const Node &n) {
  // A quantized tensor's activation is TFLite's requantizing one, not the
  // formula on raw integers.
  if (inputType(n, 0).quant.isQuantized())
    return inferActivationInt8(n);
  if (llvm::Error e =
          expectDType(n, 0, allowedDTypes(findActivationOp(n.getKind())->dtypes)))
    return e;
  return TypeList{TensorType(inputType(n, 0).dtype, inputType(n, 0).shape)};
}

/// Integer semantics, wrapping like two's complement (the result is stored
/// at the dtype's width).
int64_t evalIntegerActivation(const Activation &a, int64_t x) {
  llvm::ArrayRef<float> p = a.getParams();
  switch (a.getKind()) {
  case ActivationKind::Relu: return x < 0 ? 0 : x;
  // The float bounds, compared exactly in double.
  case ActivationKind::Clip:
    return double(x) < p[0] ? int64_t(p[0]) : double(x) > p[1] ? int64_t(p[1]) : x;
  case ActivationKind::Abs: return x < 0 ? int64_t(0 - uint64_t(x)) : x;
  case ActivationKind::Neg: return int64_t(0 - uint64_t(x));
  case ActivationKind::Sign: return x > 0 ? 1 : x < 0 ? -1 : 0;
  // Float thresholds; the result truncates as a cast would.
  default: return static_cast<int64_t>(applyActivation(a, double(x)));
  }
}

llvm::Error evalActivation(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  if (x.getType().quant.isQuantized())
    return evalActivationInt8(n, in, out);
  Activation a = *activationOf(n);
  Tensor &y = out[0];
  int64_t count = y.numElements();
  if (y.getDType() == DType::F32) {
    const float *xs = x.data<float>();
    float *ys = y.data<float>();
    for (int64_t i = 0; i < count; ++i)
      ys[i] = static_cast<float>(applyActivation(a, xs[i]));
  } else if (isFloatDType(y.getDType())) {
    for (int64_t i = 0; i < count; ++i)
      writeFloat(y, i, applyActivation(a, readFloat(x, i)));
  } else {
    for (int64_t i = 0; i < count; ++i)
      writeInt(y, i, evalIntegerActivation(a, readInt(x, i)));
  }
  return llvm::Error::success();
}

} // namespace

std::optional<ActivationKind> activationKindOf(OpKind kind) {
  if (const ActivationOp *a = findActivationOp(kind))
    return a->kind;
  return std::nullopt;
}

std::optional<Activation> activationOf(const Node &n) {
  std::optional<ActivationKind> kind = activationKindOf(n.getKind());
  if (!kind)
    return std::nullopt;
  llvm::SmallVector<float, 2> params;
  for (const ActivationParam &p : activationParams(*kind))
    params.push_back(n.getFloat(p.name));
  return Activation::make(*kind, params);
}

const Activation &fusedActivation(const Node &n) {
  return n.getActivation(kActivationAttr);
}

OpKind activationOpKind(ActivationKind kind) {
  for (const ActivationOp &a : kActivationOps)
    if (a.kind == kind)
      return a.op;
  llvm_unreachable("a fused-only activation has no op");
}

AttrMap activationOpAttrs(const Activation &a) {
  AttrMap attrs;
  llvm::ArrayRef<ActivationParam> params = activationParams(a.getKind());
  for (size_t i = 0; i < params.size(); ++i)
    attrs.emplace(params[i].name, Attr::ofFloat(a.getParams()[i]));
  return attrs;
}

AttrSpec fusedActivationAttrSpec() {
  return {kActivationAttr.data(), AttrKind::Activation,
          Attr::ofActivation(Activation())};
}

void registerActivationOps(std::vector<OpDef> &defs) {
  for (const ActivationOp &a : kActivationOps) {
    std::vector<AttrSpec> attrs;
    // Clip's bounds may be infinite (a model's -inf); no parameter is NaN.
    AttrDomain::Kind domain = a.kind == ActivationKind::Clip ? AttrDomain::Kind::NotNaN
                                                             : AttrDomain::Kind::Finite;
    for (const ActivationParam &p : activationParams(a.kind))
      attrs.push_back(
          {p.name, AttrKind::Float, Attr::ofFloat(p.defaultValue), false, {domain}});
    if (hasInt8Form(a.kind))
      attrs.push_back(quantAttrSpec());
    defs.push_back({a.op, activationName(a.kind).data(), 1, 1, 1, 1,
                    std::move(attrs), inferActivation, evalActivation});
    if (hasInt8Form(a.kind))
      defs.back().traits |= kInt8KernelTrait;
  }
}

} // namespace kiln
