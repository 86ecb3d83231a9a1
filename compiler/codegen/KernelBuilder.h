//===- KernelBuilder.h - Building blocks for kernel emission ---*- C++ -*-===//
//
// Kernels are emitted as LLVM IR from C++, once per instruction, with every
// shape a constant; LLVM then unrolls, vectorizes and schedules them for the
// target's CPU and features. So there is one source per kernel family and no
// code compiled for one target is ever reused for another.
//
// Indices use the target's pointer-sized integer (32-bit on 32-bit targets).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELBUILDER_H
#define KILN_CODEGEN_KERNELBUILDER_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"

namespace kiln {
namespace codegen {

class KernelBuilder {
public:
  KernelBuilder(llvm::IRBuilder<> &b, llvm::Type *idxTy) : b(b), idxTy(idxTy) {}

  llvm::IRBuilder<> &b;
  llvm::Type *idxTy;

  llvm::Value *idx(int64_t v) { return llvm::ConstantInt::get(idxTy, v); }
  llvm::Value *f32(float v) {
    return llvm::ConstantFP::get(b.getFloatTy(), v);
  }
  llvm::Type *elemType(DType t);

  /// for (iv = begin; iv < end; ++iv) body(iv); leaves the builder after it.
  void loop(llvm::Value *begin, llvm::Value *end,
            llvm::function_ref<void(llvm::Value *)> body,
            const llvm::Twine &name = "i");
  void loop(int64_t count, llvm::function_ref<void(llvm::Value *)> body,
            const llvm::Twine &name = "i") {
    if (count > 0)
      loop(idx(0), idx(count), body, name);
  }
  /// Loop nest over `extents` (outermost first); body gets the induction
  /// variables. Extent-1 dimensions get a constant 0, not a loop.
  void nest(llvm::ArrayRef<int64_t> extents,
            llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)> body);

  /// sum(ivs[i] * strides[i]) + base
  llvm::Value *linear(llvm::ArrayRef<llvm::Value *> ivs,
                      llvm::ArrayRef<int64_t> strides, llvm::Value *base = nullptr);

  llvm::Value *load(llvm::Type *ty, llvm::Value *base, llvm::Value *index);
  void store(llvm::Value *v, llvm::Value *base, llvm::Value *index);
  llvm::Value *gep(llvm::Type *ty, llvm::Value *base, llvm::Value *index);

  /// A stack slot in the function's entry block (promoted to a register by
  /// SROA), for loop-carried scalars such as reductions.
  llvm::AllocaInst *scalarSlot(llvm::Type *ty, const llvm::Twine &name);

  /// e^x for f32 (scalar or vector), without libm: range reduction to
  /// [-ln2/2, ln2/2], a degree-6 polynomial, and exponent bits for 2^n.
  /// Branch-free so loops around it vectorize; ~1 ulp over the clamped range.
  llvm::Value *exp(llvm::Value *x);
  llvm::Value *maxF(llvm::Value *a, llvm::Value *c);
  llvm::Value *minF(llvm::Value *a, llvm::Value *c);
  /// One of kiln's activations ("", "Relu", "LeakyRelu", "Clip", "Sigmoid",
  /// "Tanh"), as in applyActivation() of compiler/ops/OpHelpers.h. The kind
  /// and parameters must have passed validateActivation.
  llvm::Value *activation(llvm::StringRef kind, llvm::ArrayRef<float> params,
                          llvm::Value *x);

  /// Copies a tensor of `shape` between two strided layouts (element strides).
  void stridedCopy(llvm::Type *elemTy, llvm::ArrayRef<int64_t> shape,
                   llvm::Value *src, llvm::ArrayRef<int64_t> srcStrides,
                   int64_t srcOffset, llvm::Value *dst,
                   llvm::ArrayRef<int64_t> dstStrides, int64_t dstOffset);
};

/// Checks an activation's kind and parameter count.
llvm::Error validateActivation(llvm::StringRef kind,
                               llvm::ArrayRef<float> params);

/// Row-major element strides of `shape`.
llvm::SmallVector<int64_t, 6> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

} // namespace codegen
} // namespace kiln

#endif
