//===- Target.h - Code generation target selection -------------*- C++ -*-===//
#ifndef KILN_CODEGEN_TARGET_H
#define KILN_CODEGEN_TARGET_H

#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace kiln {

enum class FloatABIKind { Default, Soft, SoftFP, Hard };
enum class RelocModelKind { Default, Static, PIC };

/// What to generate code for. Empty fields take the defaults: the host triple,
/// and for the host the host CPU and its features; PIC relocation on hosted
/// targets, static on bare metal.
struct TargetOptions {
  std::string triple;
  std::string cpu;
  std::string features;
  FloatABIKind floatABI = FloatABIKind::Default;
  RelocModelKind relocModel = RelocModelKind::Default;
};

std::optional<FloatABIKind> parseFloatABI(llvm::StringRef s);
std::optional<RelocModelKind> parseRelocModel(llvm::StringRef s);

/// Registers LLVM's targets once (thread-safe).
void initializeLLVMTargets();

/// Creates the TargetMachine for `opts`, with every default resolved.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetOptions &opts);

} // namespace kiln

#endif
