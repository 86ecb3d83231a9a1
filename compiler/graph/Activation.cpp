#include "compiler/graph/Activation.h"
#include "compiler/graph/Attr.h"

#include "llvm/Support/raw_ostream.h"


#include <limits>

namespace kiln {
namespace {

struct ActivationInfo {
  const char *name;
  llvm::ArrayRef<ActivationParam> params;
};

#define NO_PARAMS
#define PARAM(N, D) {#N, D}
#define PARAMS2(N0, D0, N1, D1) {#N0, D0}, {#N1, D1}
#define KILN_ACTIVATION(Name, DTypes, Params, ...)                             \
  const ActivationParam k##Name##Parameters[] = {{"", 0}, Params};
#define KILN_FUSED_ACTIVATION(Name, Params, ...)                               \
  const ActivationParam k##Name##Parameters[] = {{"", 0}, Params};
#include "compiler/ops/Activations.def"

/// Indexed by ActivationKind. The params arrays start with a placeholder so
/// that records without parameters still declare an array.
const ActivationInfo kInfos[] = {
    {"None", {}},
#define KILN_ACTIVATION(Name, DTypes, Params, ...)                             \
  {#Name, llvm::ArrayRef(k##Name##Parameters).drop_front()},
#define KILN_FUSED_ACTIVATION(Name, Params, ...)                               \
  {#Name, llvm::ArrayRef(k##Name##Parameters).drop_front()},
#include "compiler/ops/Activations.def"
};
#undef NO_PARAMS
#undef PARAM
#undef PARAMS2

const ActivationInfo &info(ActivationKind kind) {
  return kInfos[static_cast<unsigned>(kind)];
}

} // namespace

std::optional<Activation> Activation::make(ActivationKind kind,
                                           llvm::ArrayRef<float> params) {
  if (params.size() != activationParams(kind).size())
    return std::nullopt;
  Activation a;
  a.kind_ = kind;
  a.params_.assign(params.begin(), params.end());
  return a;
}

llvm::StringRef Activation::getName() const { return activationName(kind_); }

std::string Activation::str() const {
  if (isNone())
    return "none";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << getName();
  if (!params_.empty()) {
    os << '(';
    for (size_t i = 0; i < params_.size(); ++i)
      os << (i ? "," : "") << floatStr(params_[i]);
    os << ')';
  }
  return s;
}

llvm::StringRef activationName(ActivationKind kind) { return info(kind).name; }

llvm::ArrayRef<ActivationParam> activationParams(ActivationKind kind) {
  return info(kind).params;
}

std::optional<ActivationKind> activationByName(llvm::StringRef name) {
  for (unsigned k = 1; k < std::size(kInfos); ++k)
    if (name == kInfos[k].name)
      return static_cast<ActivationKind>(k);
  return std::nullopt;
}

} // namespace kiln
