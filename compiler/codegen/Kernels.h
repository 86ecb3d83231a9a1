//===- Kernels.h - Kernel emitters per primitive op ------------*- C++ -*-===//
#ifndef KILN_CODEGEN_KERNELS_H
#define KILN_CODEGEN_KERNELS_H

#include "compiler/codegen/KernelBuilder.h"

namespace kiln {
namespace codegen {

/// The operands of one kernel instruction, as pointers into the regions.
struct KernelArgs {
  const Node &node;
  llvm::ArrayRef<llvm::Value *> inputs; ///< nullptr for an absent optional input
  llvm::ArrayRef<llvm::Value *> outputs;
  llvm::Value *temp; ///< scratch the LIR reserved for this kernel, or nullptr
};

/// Emits the body of a kernel function at the builder's insertion point.
using KernelEmitter = llvm::Error (*)(KernelBuilder &kb, const KernelArgs &args);

/// The emitter for `kind`, or nullptr where the code generator has none.
KernelEmitter findKernelEmitter(OpKind kind);

/// Emits `dst[i] = src[i]` for `bytes` bytes (byte loop; vectorized by LLVM,
/// never a libc memcpy).
void emitByteCopy(KernelBuilder &kb, llvm::Value *src, llvm::Value *dst,
                  uint64_t bytes);

// One emitter per kernel family (kernels/*.cpp).
llvm::Error emitConv(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitMatMul(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitBinary(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitUnary(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitPool(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitSoftmax(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitTranspose(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitConcat(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitPad(KernelBuilder &kb, const KernelArgs &args);

/// Checks that `v` has dtype f32, naming the node otherwise.
llvm::Error requireF32(const Node &n, const Value *v);

} // namespace codegen
} // namespace kiln

#endif
