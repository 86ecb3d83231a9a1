//===- MatMulOps.cpp - Gemm, MatMul ----------------------------------------===//
//
// Gemm (opset 13) and MatMul (opset 13, numpy.matmul broadcasting). kiln's
// MatMul also carries the fused fully-connected form: an optional 1-D bias
// added after the product and an optional activation after that.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"
#include "compiler/ops/ActivationFormula.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <vector>

namespace kiln {
namespace {

llvm::Error expectAllF32(const Node &n) {
  for (unsigned i = 0; i < n.getNumInputs(); ++i)
    if (n.getInput(i))
      if (llvm::Error e = expectDType(n, i, {DType::F32}))
        return e;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Gemm
//===----------------------------------------------------------------------===//

/// Gemm's operand sizes after transA / transB.
struct GemmDims {
  int64_t m, k, n;
};

GemmDims gemmDims(const Node &node, llvm::ArrayRef<int64_t> a,
                  llvm::ArrayRef<int64_t> b) {
  GemmView gemm(node);
  bool ta = gemm.transA() != 0, tb = gemm.transB() != 0;
  return {ta ? a[1] : a[0], ta ? a[0] : a[1], tb ? b[0] : b[1]};
}

llvm::Expected<TypeList> inferGemm(const Node &n) {
  if (llvm::Error e = expectAllF32(n))
    return e;
  if (llvm::Error e = expectRank(n, 0, 2))
    return e;
  if (llvm::Error e = expectRank(n, 1, 2))
    return e;
  const TensorType &a = inputType(n, 0), &b = inputType(n, 1);
  GemmDims d = gemmDims(n, a.shape, b.shape);
  int64_t bk = GemmView(n).transB() != 0 ? b.shape[1] : b.shape[0];
  if (d.k != bk)
    return nodeError(n, llvm::formatv("inner dimensions differ: A {0} gives K "
                                      "= {1}, B {2} gives K = {3}",
                                      a.str(), d.k, b.str(), bk));
  Shape out{d.m, d.n};
  if (n.getInput(2) && !isUnidirectionalBroadcastable(inputType(n, 2).shape, out))
    return nodeError(n, "C " + inputType(n, 2).str() +
                            " does not broadcast to " + shapeStr(out));
  return TypeList{TensorType(DType::F32, out)};
}

llvm::Error evalGemm(const Node &node, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  const Tensor *c = in.size() > 2 ? in[2] : nullptr;
  GemmDims d = gemmDims(node, a.getShape(), b.getShape());
  GemmView gemm(node);
  bool ta = gemm.transA() != 0, tb = gemm.transB() != 0;
  // Element (i, k) of op(A) and (k, j) of op(B) through strides.
  int64_t aRow = ta ? 1 : d.k, aCol = ta ? d.m : 1;
  int64_t bRow = tb ? 1 : d.n, bCol = tb ? d.k : 1;
  double alpha = gemm.alpha(), beta = gemm.beta();
  const float *pa = a.data<float>(), *pb = b.data<float>();
  float *y = out[0].data<float>();
  Shape cStrides;
  if (c)
    cStrides = broadcastStrides(c->getShape(), {d.m, d.n});
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = 0; j < d.n; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < d.k; ++k)
        acc += double(pa[i * aRow + k * aCol]) * pb[k * bRow + j * bCol];
      acc *= alpha;
      if (c)
        acc += beta * c->data<float>()[i * cStrides[0] + j * cStrides[1]];
      y[i * d.n + j] = static_cast<float>(acc);
    }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

/// FULLY_CONNECTED's int8 form: [M,K] x [K,N] (+ int32 bias [N]).
llvm::Expected<TypeList> inferMatMulInt8(const Node &n) {
  if (llvm::Error e = expectQuantizedWeights(n, 1))
    return e;
  const TensorType &a = inputType(n, 0), &b = inputType(n, 1);
  if (a.rank() != 2 || b.rank() != 2 || a.shape[1] != b.shape[0])
    return nodeError(n, "int8 MatMul is [M,K] x [K,N], got " + a.str() +
                            " and " + b.str());
  if (n.getInput(2) && inputType(n, 2).shape != Shape{b.shape[1]})
    return nodeError(n, "bias must be [" + std::to_string(b.shape[1]) +
                            "], got " + inputType(n, 2).str());
  auto t = quantizedResult(n, {a.shape[0], b.shape[1]});
  if (!t)
    return t.takeError();
  if (auto range = int8ActivationRange(n, t->quant); !range)
    return range.takeError();
  return TypeList{*t};
}

llvm::Expected<TypeList> inferMatMul(const Node &n) {
  if (inputType(n, 0).dtype == DType::I8)
    return inferMatMulInt8(n);
  if (llvm::Error e = expectAllF32(n))
    return e;
  const TensorType &a = inputType(n, 0), &b = inputType(n, 1);
  if (a.rank() == 0 || b.rank() == 0)
    return nodeError(n, "operands must not be scalars, got " + a.str() +
                            " and " + b.str());
  std::optional<MatMulDims> d = matMulDims(a.shape, b.shape);
  if (!d)
    return nodeError(n, "operands " + a.str() + " and " + b.str() +
                            " are incompatible (inner or batch dimensions)");
  if (n.getInput(2) && inputType(n, 2).shape != Shape{d->n})
    return nodeError(n, llvm::formatv("bias must be [{0}], got {1}", d->n,
                                      inputType(n, 2).str()));
  return TypeList{TensorType(DType::F32, d->outShape)};
}

llvm::Error evalMatMul(const Node &node, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  if (in[0]->getDType() == DType::I8)
    return evalMatMulInt8(node, in, out);
  const Tensor &a = *in[0], &b = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  MatMulDims d = *matMulDims(a.getShape(), b.getShape());
  const Activation &act = fusedActivation(node);
  // Batch strides in elements: broadcastStrides counts whole matrices.
  Shape aStrides = broadcastStrides(d.aBatch, d.batch);
  Shape bStrides = broadcastStrides(d.bBatch, d.batch);
  for (int64_t &s : aStrides)
    s *= d.m * d.k;
  for (int64_t &s : bStrides)
    s *= d.k * d.n;
  int64_t numBatches = TensorType(DType::F32, d.batch).numElements();
  const float *pa = a.data<float>(), *pb = b.data<float>();
  float *y = out[0].data<float>();
  std::vector<double> acc(d.n);
  StridedIndex it(d.batch, {aStrides, bStrides});
  for (int64_t batch = 0; batch < numBatches; ++batch, it.next()) {
    const float *ma = pa + it.offset(0), *mb = pb + it.offset(1);
    float *my = y + batch * d.m * d.n;
    for (int64_t i = 0; i < d.m; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t k = 0; k < d.k; ++k) {
        double av = ma[i * d.k + k];
        for (int64_t j = 0; j < d.n; ++j)
          acc[j] += av * mb[k * d.n + j];
      }
      for (int64_t j = 0; j < d.n; ++j) {
        double v = acc[j] + (bias ? bias->data<float>()[j] : 0.0);
        my[i * d.n + j] =
            static_cast<float>(applyActivation(act, static_cast<float>(v)));
      }
    }
  }
  return llvm::Error::success();
}

} // namespace

void registerMatMulOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::Gemm,
                  "Gemm",
                  2,
                  3,
                  1,
                  1,
                  {
                      finiteAttr("alpha", 1.0f),
                      finiteAttr("beta", 1.0f),
                      flagAttr("transA", 0),
                      flagAttr("transB", 0),
                  },
                  inferGemm,
                  evalGemm});
  defs.push_back({OpKind::MatMul,
                  "MatMul",
                  2,
                  3,
                  1,
                  1,
                  {fusedActivationAttrSpec(), quantAttrSpec()},
                  inferMatMul,
                  evalMatMul});
  defs.back().kernel = KernelFamily::MatMul;
  defs.back().traits |= kInt8KernelTrait;
}

} // namespace kiln
