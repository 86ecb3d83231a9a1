#include "compiler/lowering/Lowering.h"
#include "compiler/lowering/LowerRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <string>
#include <vector>

namespace kiln {

llvm::Error checkLowered(const Graph &g) {
  std::vector<std::string> problems;
  for (const Node *n : g.getNodes()) {
    if (!n->getDef().isPrimitive())
      problems.push_back(
          llvm::toString(nodeError(*n, "not supported by the code generator")));
    else if (n->is(OpKind::Conv) && n->getInput(0)->getType().rank() != 4)
      problems.push_back(llvm::toString(nodeError(
          *n, llvm::formatv("{0}-D convolution is not supported by the code "
                            "generator (only 2-D; 1-D and 3-D through 2-D)",
                            n->getInput(0)->getType().rank() - 2))));
  }
  if (problems.empty())
    return llvm::Error::success();
  std::string msg = std::to_string(problems.size()) +
                    (problems.size() == 1 ? " node" : " nodes") +
                    " cannot be compiled:";
  for (const std::string &p : problems)
    msg += "\n  " + p;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// The rule for `n`'s op; ops without one are already primitive in their
/// explicit form, or cannot be lowered (checkLowered reports those).
static llvm::Expected<bool> lowerNode(Graph &g, Node *n) {
  switch (n->getKind()) {
  case OpKind::Gemm:
    return lowerGemm(g, n);
  case OpKind::BatchNormalization:
    return lowerBatchNorm(g, n);
  case OpKind::GlobalAveragePool:
  case OpKind::GlobalMaxPool:
    return lowerGlobalPool(g, n);
  case OpKind::LayerNormalization:
  case OpKind::InstanceNormalization:
  case OpKind::MeanVarianceNormalization:
    return lowerNormalization(g, n);
  case OpKind::LRN:
    return lowerLRN(g, n);
  case OpKind::QuantizeLinear:
  case OpKind::DequantizeLinear:
    return lowerQuantization(g, n);
  case OpKind::CumSum:
    return lowerCumSum(g, n);
  case OpKind::RNN:
  case OpKind::GRU:
  case OpKind::LSTM:
    return lowerRecurrent(g, n);
  case OpKind::OneHot:
    return lowerOneHot(g, n);
  case OpKind::Resize:
    return lowerResize(g, n);
  case OpKind::Conv:
    if (n->getInput(0)->getType().rank() == 3)
      return lowerConv1D(g, n);
    if (n->getInput(0)->getType().rank() == 5)
      return lowerConv3D(g, n);
    return makeWindowExplicit(g, n);
  case OpKind::MaxPool:
  case OpKind::AveragePool:
    if (n->getInput(0)->getType().rank() == 3)
      return lowerPool1D(g, n);
    return makeWindowExplicit(g, n);
  case OpKind::ConvTranspose:
    return lowerConvTranspose(g, n);
  case OpKind::Flatten:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze:
    return lowerToReshape(g, n);
  case OpKind::Identity:
  case OpKind::Dropout:
  case OpKind::Cast:
  case OpKind::Pad:
    return removeForwarding(g, n);
  case OpKind::Transpose:
    return makePermExplicit(g, n);
  case OpKind::Slice:
    return makeSliceExplicit(g, n);
  case OpKind::Split:
    return lowerSplit(g, n);
  case OpKind::Tile:
    return lowerTile(g, n);
  case OpKind::DepthToSpace:
  case OpKind::SpaceToDepth:
    return lowerDepthSpace(g, n);
  case OpKind::Trilu:
    return lowerTrilu(g, n);
  case OpKind::NegativeLogLikelihoodLoss:
  case OpKind::SoftmaxCrossEntropyLoss:
    return lowerLoss(g, n);
#define KILN_OP(Name)
#define KILN_REDUCE_OP(Name) case OpKind::Name:
#include "compiler/graph/OpKinds.def"
    return makeReduceExplicit(g, n);
  default:
    return false;
  }
}

llvm::Expected<bool> lowerGraph(Graph &g) {
  bool changed = false;
  for (Node *n : g.getNodes()) {
    auto lowered = lowerNode(g, n);
    if (!lowered)
      return lowered.takeError();
    changed |= *lowered;
  }
  return changed;
}

namespace {

class LowerPass : public Pass {
public:
  llvm::StringRef getName() const override { return "lower"; }

  llvm::Expected<bool> run(Graph &g) override {
    auto changed = lowerGraph(g);
    if (!changed)
      return changed.takeError();
    if (auto err = checkLowered(g))
      return std::move(err);
    return *changed;
  }
};

} // namespace

std::unique_ptr<Pass> createLowerPass() {
  return std::make_unique<LowerPass>();
}

} // namespace kiln
