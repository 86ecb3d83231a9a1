//===- StackBound.h - A compile-time bound on NAME_run's stack --*- C++ -*-===//
//
// From LLVM's own frame sizes (TargetOptions::EmitStackSizeSection, the
// object's .stack_sizes section) and the call graph of the optimized module:
// the entry's frame plus, recursively, the deepest of its callees'.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_STACKBOUND_H
#define KILN_CODEGEN_STACKBOUND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// How much stack the bundle entry uses at most, or why that is not known.
struct StackBound {
  /// Bytes below the caller's stack pointer, return addresses included.
  std::optional<uint64_t> bytes;
  /// Set when `bytes` is not: what the entry can reach whose stack use no
  /// frame size gives (a call out of the object, an indirect call,
  /// recursion, a frame of dynamic size).
  std::string unknownBecause;
};

/// The bound for `entry` in `m` (optimized and emitted) and `object` (its
/// ELF object, with a .stack_sizes section). An error only for an object
/// that cannot be read.
llvm::Expected<StackBound> boundStack(const llvm::Module &m, llvm::StringRef entry,
                                      llvm::ArrayRef<char> object);

} // namespace kiln

#endif
