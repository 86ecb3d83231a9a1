//===- Codegen.h - LLVM code generation for a bundle -----------*- C++ -*-===//
#ifndef KILN_CODEGEN_CODEGEN_H
#define KILN_CODEGEN_CODEGEN_H

#include "compiler/codegen/KernelBuilder.h"
#include "compiler/codegen/StackBound.h"
#include "compiler/codegen/Target.h"
#include "compiler/lir/LIR.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// What the bundle's object holds besides the kernels and NAME_run.
struct BundleObjectOptions {
  /// Link `embeddedWeights` in as read-only data (section
  /// ".rodata.kiln_weights"), exported as NAME_weights and pointed to by
  /// NAME_bundle.embedded_weights, which the header declares even for a
  /// model without weights; false for a weights file.
  bool embedWeights = false;
  llvm::ArrayRef<uint8_t> embeddedWeights;
  /// NAME_run calls kiln_profile_layer (kiln.h), which the program
  /// provides, before each layer and after the last.
  bool profileLayers = false;
};

/// Builds the bundle's LLVM module for `f` (planned): one internal kernel
/// function per instruction, NAME_run, the NAME_bundle descriptor and what
/// `opts` adds. `bundleName` must be a C identifier.
llvm::Expected<std::unique_ptr<llvm::Module>>
buildBundleModule(llvm::LLVMContext &ctx, const lir::Function &f,
                  llvm::StringRef bundleName, llvm::TargetMachine &tm,
                  const BundleObjectOptions &opts);

/// Runs LLVM's O3 pipeline for the target, with every library function
/// disabled so no call to libc (memcpy, memset, expf, ...) can appear.
void optimizeModule(llvm::Module &m, llvm::TargetMachine &tm);

/// Optimizes `m` and emits it as an object file.
llvm::Expected<llvm::SmallVector<char, 0>>
emitObject(llvm::Module &m, llvm::TargetMachine &tm);

/// The f32 lanes of the widest vector registers the kernels use on `tm`'s
/// target (1 on a scalar core such as Cortex-M), and how many registers
/// hold a register tile; resolveTarget puts them in TargetInfo::vectorLanes
/// and vectorRegisters.
codegen::VectorInfo targetVectorInfo(llvm::TargetMachine &tm);

/// The bundle's object file and what its code needs of the stack.
struct BundleObject {
  llvm::SmallVector<char, 0> bytes;
  StackBound stack;
};

/// Module, optimization, object bytes for `f` (planned) on `tm`, and the
/// bound on NAME_run's stack (`tm` emits .stack_sizes: createTargetMachine).
llvm::Expected<BundleObject>
generateBundleObject(const lir::Function &f, llvm::StringRef bundleName,
                     llvm::TargetMachine &tm, const BundleObjectOptions &opts);

} // namespace kiln

#endif
