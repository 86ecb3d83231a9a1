//===- Activation.h - The typed fused-activation value ---------*- C++ -*-===//
//
// An activation as an IR value: which one (ActivationKind, one per record of
// compiler/ops/Activations.def) and its float parameters. Conv and MatMul
// carry one in their kiln.activation attribute; kernels and the interpreter
// read it without parsing anything.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_ACTIVATION_H
#define KILN_GRAPH_ACTIVATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

enum class ActivationKind : uint8_t {
  None,
#define KILN_ACTIVATION(Name, DTypes, Params, ...) Name,
#define KILN_FUSED_ACTIVATION(Name, Params, ...) Name,
#include "compiler/ops/Activations.def"
};

/// The number of ActivationKinds, None included.
inline constexpr unsigned kNumActivationKinds = 1
#define KILN_ACTIVATION(Name, DTypes, Params, ...) +1
#define KILN_FUSED_ACTIVATION(Name, Params, ...) +1
#include "compiler/ops/Activations.def"
    ;

/// The attribute of Conv and MatMul that holds their fused activation.
inline constexpr llvm::StringLiteral kActivationAttr = "kiln.activation";

/// One float parameter of an activation: its attribute name on the op and
/// the op's default.
struct ActivationParam {
  const char *name;
  float defaultValue;
};

class Activation {
public:
  /// No activation: the identity.
  Activation() = default;
  /// `kind` with `params`, or nullopt when the count is not the record's.
  static std::optional<Activation> make(ActivationKind kind,
                                        llvm::ArrayRef<float> params = {});

  ActivationKind getKind() const { return kind_; }
  llvm::ArrayRef<float> getParams() const { return params_; }
  bool isNone() const { return kind_ == ActivationKind::None; }
  llvm::StringRef getName() const;

  bool operator==(const Activation &o) const {
    return kind_ == o.kind_ && params_ == o.params_;
  }
  bool operator!=(const Activation &o) const { return !(*this == o); }
  /// Printer form: none, Relu, LeakyRelu(0.1), Clip(0,6).
  std::string str() const;

private:
  ActivationKind kind_ = ActivationKind::None;
  llvm::SmallVector<float, 2> params_;
};

/// The record's name ("None" for none).
llvm::StringRef activationName(ActivationKind kind);
/// The record's parameters, in formula order.
llvm::ArrayRef<ActivationParam> activationParams(ActivationKind kind);
/// The activation record named `name`, or nullopt.
std::optional<ActivationKind> activationByName(llvm::StringRef name);

} // namespace kiln

#endif
