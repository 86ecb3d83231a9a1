//===- RecurrentActivations.cpp - RNN, GRU and LSTM activations -----------===//

#include "compiler/frontend/onnx/RecurrentActivations.h"

#include "compiler/ops/RecurrentShape.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {
namespace {

/// ONNX's activations for RNN, GRU and LSTM that kiln has; it lacks Affine
/// and ScaledTanh, which ONNX lists too.
constexpr ActivationKind kOnnxRecurrentActivations[] = {
    ActivationKind::Relu,        ActivationKind::Tanh,            ActivationKind::Sigmoid,
    ActivationKind::LeakyRelu,   ActivationKind::ThresholdedRelu, ActivationKind::HardSigmoid,
    ActivationKind::Elu,         ActivationKind::Softsign,        ActivationKind::Softplus};

std::optional<ActivationKind> onnxRecurrentActivation(llvm::StringRef name) {
  // Case as ONNX Runtime reads them: any.
  for (ActivationKind k : kOnnxRecurrentActivations)
    if (activationName(k).equals_insensitive(name))
      return k;
  return std::nullopt;
}

} // namespace

bool isRecurrentActivationAttr(llvm::StringRef attr) {
  return attr == "activations" || attr == "activation_alpha" || attr == "activation_beta";
}

llvm::Error recurrentActivations(const onnx::NodeProto &np, PendingNode &n) {
  std::vector<std::string> names;
  std::vector<float> alphas, betas;
  std::string direction = "forward";
  for (const onnx::AttributeProto &a : np.attribute()) {
    if (a.name() == "direction")
      direction = a.s();
    if (!isRecurrentActivationAttr(a.name()))
      continue;
    bool strings = a.name() == "activations";
    if (a.type() != (strings ? onnx::AttributeProto::STRINGS : onnx::AttributeProto::FLOATS))
      return n.error("attribute '" + a.name() + "' must be a list of " +
                     (strings ? "strings" : "floats"));
    if (strings)
      names.assign(a.strings().begin(), a.strings().end());
    else
      (a.name() == "activation_alpha" ? alphas : betas).assign(a.floats().begin(),
                                                                 a.floats().end());
  }
  if (names.empty())
    return llvm::Error::success();
  const unsigned count = recurrentActivationCount(n.kind);
  const unsigned dirs = direction == "bidirectional" ? 2 : 1;
  if (names.size() != count && names.size() != count * dirs)
    return n.error(llvm::formatv("lists {0} activations; it takes {1} per direction",
                                 names.size(), count));
  // Parameters are consumed in order, each by an activation that takes one.
  size_t nextAlpha = 0, nextBeta = 0;
  std::vector<Activation> acts;
  for (const std::string &name : names) {
    std::optional<ActivationKind> kind = onnxRecurrentActivation(name);
    if (!kind)
      return n.error("activation '" + name +
                     "' is not supported (Relu, Tanh, Sigmoid, LeakyRelu, ThresholdedRelu, "
                     "HardSigmoid, Elu, Softsign and Softplus are)");
    llvm::SmallVector<float, 2> params;
    for (const ActivationParam &p : activationParams(*kind)) {
      bool alpha = llvm::StringRef(p.name) == "alpha";
      std::vector<float> &given = alpha ? alphas : betas;
      size_t &next = alpha ? nextAlpha : nextBeta;
      params.push_back(next < given.size() ? given[next++] : p.defaultValue);
    }
    acts.push_back(*Activation::make(*kind, params));
  }
  for (unsigned i = count; i < acts.size(); ++i)
    if (acts[i] != acts[i - count])
      return n.error(llvm::formatv("activations that differ between the directions ({0} and "
                                   "{1}) are not supported",
                                   acts[i - count].str(), acts[i].str()));
  for (unsigned i = 0; i < count; ++i)
    n.attrs.insert_or_assign(kRecurrentActivationAttrs[i], Attr::ofActivation(acts[i]));
  return llvm::Error::success();
}

} // namespace kiln
