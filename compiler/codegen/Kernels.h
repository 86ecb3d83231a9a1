//===- Kernels.h - Kernel emitters per primitive op ------------*- C++ -*-===//
#ifndef KILN_CODEGEN_KERNELS_H
#define KILN_CODEGEN_KERNELS_H

#include "compiler/codegen/KernelBuilder.h"
#include "compiler/lir/LIR.h"

namespace kiln {
namespace codegen {

/// The operands of one kernel instruction, as pointers into the regions.
struct KernelArgs {
  const Node &node;
  llvm::ArrayRef<llvm::Value *> inputs; ///< nullptr for an absent optional input
  llvm::ArrayRef<llvm::Value *> outputs;
  llvm::Value *temp; ///< scratch the LIR reserved for this kernel, or nullptr
  /// The layout of `temp` when it is a padded input copy (lir::Instr::padded).
  const lir::PaddedInput *padded = nullptr;
  /// The kernel to run (lir::Instr::strategy); emitters dispatch on it alone.
  lir::KernelStrategy strategy = {};
  /// Nodes fused into this kernel's epilogue (lir::Instr::fused); their
  /// extra operands follow the node's own inputs.
  llvm::ArrayRef<const Node *> fused = {};
};

/// Emits the body of a kernel function at the builder's insertion point.
using KernelEmitter = llvm::Error (*)(KernelBuilder &kb, const KernelArgs &args);

/// The emitter of `kind`'s kernel family (OpDef::kernel) for `strategy`,
/// or nullptr for a view or an op that is not primitive.
KernelEmitter findKernelEmitter(OpKind kind, const lir::KernelStrategy &strategy);
/// The family's int8 kernel (lir::KernelStrategy::Kind::Int8), in
/// kernels/Int8Kernels.cpp; nullptr where the family has none.
KernelEmitter findInt8KernelEmitter(OpKind kind);

/// Runs body(i) for i in [0, count): a loop, or body(0) without one when
/// count is 1 (batch and group loops are mostly of one iteration).
void forEachIndex(KernelBuilder &kb, int64_t count,
                  llvm::function_ref<void(llvm::Value *)> body,
                  const llvm::Twine &name = "i");

/// Emits `dst[i] = src[i]` for `bytes` bytes (byte loop; vectorized by LLVM,
/// never a libc memcpy).
void emitByteCopy(KernelBuilder &kb, llvm::Value *src, llvm::Value *dst,
                  uint64_t bytes);

/// int8 Conv and MatMul of strategy lir::KernelStrategy::Int8Gemm
/// (kernels/Int8GemmKernel.cpp).
llvm::Error emitInt8Gemm(KernelBuilder &kb, const KernelArgs &args);
/// int8 depthwise Conv of strategy lir::KernelStrategy::Int8Depthwise
/// (kernels/Int8DepthwiseKernel.cpp).
llvm::Error emitInt8Depthwise(KernelBuilder &kb, const KernelArgs &args);
/// int8 LSTM (kernels/Int8LSTMKernel.cpp), the Int8 strategy of the
/// Recurrent family.
llvm::Error emitLSTMInt8(KernelBuilder &kb, const KernelArgs &args);

// One emitter per kernel family (kernels/*.cpp).
llvm::Error emitConv(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitDepthwiseConv(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitMatMul(KernelBuilder &kb, const KernelArgs &args);
/// Every KILN_ELEMENTWISE_OP of OpKinds.def (kernels/ElementwiseKernels.cpp).
llvm::Error emitElementwise(KernelBuilder &kb, const KernelArgs &args);
/// Reduce*, ArgMax, ArgMin (kernels/ReduceKernels.cpp).
llvm::Error emitReduce(KernelBuilder &kb, const KernelArgs &args);
/// Gather, GatherElements, GatherND (kernels/GatherKernels.cpp).
llvm::Error emitGather(KernelBuilder &kb, const KernelArgs &args);
/// ScatterElements, ScatterND (kernels/GatherKernels.cpp).
llvm::Error emitScatter(KernelBuilder &kb, const KernelArgs &args);
/// Expand, Slice (kernels/MovementKernels.cpp).
llvm::Error emitExpand(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitSlice(KernelBuilder &kb, const KernelArgs &args);
/// ConvTranspose over 1-3 spatial dimensions (kernels/ConvTransposeKernel.cpp).
llvm::Error emitConvTranspose(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitPool(KernelBuilder &kb, const KernelArgs &args);
/// Pooling of strategy lir::KernelStrategy::PlanePool; others go to emitPool.
llvm::Error emitPlanePool(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitSoftmax(KernelBuilder &kb, const KernelArgs &args);
/// LayerNormalization of rows (kernels/LayerNormKernel.cpp).
llvm::Error emitLayerNorm(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitTranspose(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitConcat(KernelBuilder &kb, const KernelArgs &args);
llvm::Error emitPad(KernelBuilder &kb, const KernelArgs &args);
/// Resize of the last two axes, f32 (kernels/ResizeKernel.cpp).
llvm::Error emitResize(KernelBuilder &kb, const KernelArgs &args);
/// TopKIndices (kernels/TopKKernel.cpp).
llvm::Error emitTopK(KernelBuilder &kb, const KernelArgs &args);
/// RoiAlign (kernels/RoiAlignKernel.cpp).
llvm::Error emitRoiAlign(KernelBuilder &kb, const KernelArgs &args);

/// Checks that `v` has dtype f32, naming the node otherwise.
llvm::Error requireF32(const Node &n, const Value *v);

} // namespace codegen
} // namespace kiln

#endif
