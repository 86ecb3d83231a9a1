//===- FoldBatchNorm.cpp - Fold inference BatchNorm into its producer -----===//
//
// BN(W x + b) = (W * s) x + (b * s + t) per output channel, so a BN after a
// Conv, Gemm or 2-D MatMul with constant weights costs nothing at run time
// once its scale s and shift t are folded into the producer's constants.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/AxisIndex.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/passes/BatchNormAffine.h"
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {
namespace {

/// Where a producer keeps the operands the BN folds into.
struct FoldSite {
  const Tensor *weight;
  /// The weight axis that indexes output channels.
  unsigned weightAxis;
  /// The bias (Conv, MatMul) or C (Gemm); nullptr when absent.
  const Tensor *bias;
  /// Gemm's beta, which the folded C absorbs; 1 otherwise.
  float biasScale;
};

/// The fold site of `p`, or nullopt when `p` cannot absorb a BN: another op,
/// non-constant weights or bias, a fused activation (it would have to run
/// after the BN), or a MatMul that is not a plain 2-D product.
std::optional<FoldSite> getFoldSite(const Node &p) {
  if (p.getNumOutputs() != 1)
    return std::nullopt;
  const Tensor *w = constantF32(p.getInput(1));
  const Value *biasValue = p.getInput(2);
  const Tensor *bias = constantF32(biasValue);
  if (!w || (biasValue && !bias))
    return std::nullopt;
  if (p.is(OpKind::Conv) || p.is(OpKind::MatMul))
    if (!fusedActivation(p).isNone())
      return std::nullopt;
  if (p.is(OpKind::Conv))
    return FoldSite{w, 0, bias, 1.0f};
  if (p.is(OpKind::Gemm)) {
    GemmView gemm(p);
    return FoldSite{w, gemm.transB() != 0 ? 0u : 1u, bias, gemm.beta()};
  }
  if (p.is(OpKind::MatMul) && w->getShape().size() == 2 &&
      p.getOutput()->getType().rank() == 2)
    return FoldSite{w, 1, bias, 1.0f};
  return std::nullopt;
}

/// `w` with every slice along `axis` multiplied by its `scale` entry.
Tensor scaleAlongAxis(const Tensor &w, unsigned axis,
                      llvm::ArrayRef<float> scale) {
  AxisIndex channelOf(w.getShape(), axis);
  Tensor out = w;
  float *data = out.data<float>();
  for (int64_t i = 0, e = w.numElements(); i < e; ++i)
    data[i] *= scale[channelOf(i)];
  return out;
}

/// biasScale * bias * s + t, broadcast over the channel axis (the last axis
/// of the bias): [C] for a Conv or MatMul; for a Gemm whatever C broadcasts
/// with [N] to.
Tensor foldBias(const FoldSite &site, const ChannelAffine &a) {
  int64_t channels = a.scale.size();
  Shape biasShape{channels};
  if (site.bias)
    biasShape = *broadcastShapes(site.bias->getShape(), biasShape);
  Tensor out(TensorType(DType::F32, biasShape));
  float *data = out.data<float>();
  Shape biasStrides;
  if (site.bias)
    biasStrides = broadcastStrides(site.bias->getShape(), biasShape);
  else
    biasStrides.assign(biasShape.size(), 0);
  Shape channelStrides = broadcastStrides({channels}, biasShape);
  StridedIndex it(biasShape, {biasStrides, channelStrides});
  for (int64_t i = 0, e = out.numElements(); i < e; ++i, it.next()) {
    int64_t c = it.offset(1);
    double b = site.bias
                   ? site.biasScale * site.bias->data<float>()[it.offset(0)]
                   : 0.0;
    data[i] = static_cast<float>(b * a.scale[c] + a.shift[c]);
  }
  return out;
}

llvm::Expected<bool> foldBatchNorm(Graph &g, Node *bn) {
  Value *x = BatchNormalizationView(*bn).input();
  if (!x->isResult() || !hasSingleUser(g, x, bn))
    return false;
  Node *p = x->getProducer();
  std::optional<FoldSite> site = getFoldSite(*p);
  if (!site)
    return false;
  std::optional<ChannelAffine> affine = getBatchNormAffine(g, *bn);
  if (!affine)
    return false;
  if (site->bias &&
      !broadcastShapes(site->bias->getShape(), {int64_t(affine->scale.size())}))
    return false;

  Value *w = g.addConstant(
      p->getName().str() + "/weight",
      scaleAlongAxis(*site->weight, site->weightAxis, affine->scale));
  Value *b =
      g.addConstant(p->getName().str() + "/bias", foldBias(*site, *affine));
  AttrMap attrs;
  if (p->is(OpKind::Gemm))
    attrs["beta"] = Attr::ofFloat(1.0f);
  auto folded = rebuildNode(g, p, {p->getInput(0), w, b}, attrs);
  if (!folded)
    return folded.takeError();
  return replaceNode(g, bn, (*folded)->getOutput());
}

} // namespace

std::unique_ptr<Pass> createFoldBatchNormPass() {
  return std::make_unique<NodeRewritePass>("fold-batchnorm",
                                           OpKind::BatchNormalization, foldBatchNorm);
}

} // namespace kiln
