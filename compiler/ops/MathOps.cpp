//===- MathOps.cpp - Elementwise tests and Not ------------------------------===//
//
// The unary elementwise ops that are not activations: the tests IsNaN and
// IsInf (float in, bool out) and Not (bool). The float functions (Exp, Sin,
// Elu, ...) are records of Activations.def.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include <cmath>

namespace kiln {
namespace {

llvm::Error evalMath(const Node &n, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  for (int64_t i = 0, e = y.numElements(); i < e; ++i) {
    switch (n.getKind()) {
    case OpKind::IsNaN:
      writeInt(y, i, std::isnan(readFloat(x, i)));
      break;
    case OpKind::IsInf: {
      double v = readFloat(x, i);
      IsInfView isInf(n);
      writeInt(y, i,
               std::isinf(v) && (v > 0 ? isInf.detectPositive()
                                       : isInf.detectNegative()) != 0);
      break;
    }
    default: // Not
      writeInt(y, i, readInt(x, i) == 0);
      break;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferMath(const Node &n) {
  static const DType boolOnly[] = {DType::Bool};
  bool isTest = !n.is(OpKind::Not);
  if (llvm::Error e =
          expectDType(n, 0, isTest ? floatDTypes() : llvm::ArrayRef(boolOnly)))
    return e;
  return TypeList{TensorType(DType::Bool, inputType(n, 0).shape)};
}

OpDef mathDef(OpKind kind, const char *name, std::vector<AttrSpec> attrs = {}) {
  return {kind, name, 1, 1, 1, 1, std::move(attrs), inferMath, evalMath};
}

} // namespace

void registerMathOps(std::vector<OpDef> &defs) {
  defs.push_back(mathDef(OpKind::IsNaN, "IsNaN"));
  defs.push_back(mathDef(OpKind::IsInf, "IsInf",
                         {flagAttr("detect_negative", 1),
                          flagAttr("detect_positive", 1)}));
  defs.push_back(mathDef(OpKind::Not, "Not"));
}

} // namespace kiln
