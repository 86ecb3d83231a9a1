#include "compiler/codegen/Kernels.h"

namespace kiln {
namespace codegen {

KernelEmitter findKernelEmitter(OpKind kind, const lir::KernelStrategy &strategy) {
  if (strategy.is(lir::KernelStrategy::Kind::Int8))
    return findInt8KernelEmitter(kind);
  if (strategy.is(lir::KernelStrategy::Kind::Int8Gemm))
    return emitInt8Gemm;
  if (strategy.is(lir::KernelStrategy::Kind::Int8Depthwise))
    return emitInt8Depthwise;
  switch (getOpDef(kind).kernel) {
  case KernelFamily::Conv: return emitConv;
  case KernelFamily::ConvTranspose: return emitConvTranspose;
  case KernelFamily::MatMul: return emitMatMul;
  case KernelFamily::Elementwise: return emitElementwise;
  case KernelFamily::Reduce: return emitReduce;
  case KernelFamily::Pool: return emitPlanePool;
  case KernelFamily::Softmax: return emitSoftmax;
  case KernelFamily::LayerNorm: return emitLayerNorm;
  case KernelFamily::Gather: return emitGather;
  case KernelFamily::Scatter: return emitScatter;
  case KernelFamily::Expand: return emitExpand;
  case KernelFamily::Slice: return emitSlice;
  case KernelFamily::Transpose: return emitTranspose;
  case KernelFamily::Concat: return emitConcat;
  case KernelFamily::Pad: return emitPad;
  case KernelFamily::Resize: return emitResize;
  case KernelFamily::TopK: return emitTopK;
  case KernelFamily::RoiAlign: return emitRoiAlign;
  // An int8 LSTM has only its Int8 kernel; a float one is lowered.
  case KernelFamily::Recurrent:
  // A view has no kernel; the LIR binds its result to its input's bytes.
  case KernelFamily::View:
  case KernelFamily::None: break;
  }
  return nullptr;
}

llvm::Error requireF32(const Node &n, const Value *v) {
  if (v && v->getType().dtype != DType::F32)
    return nodeError(n, "the code generator supports only f32 here, got " +
                            v->getType().str());
  return llvm::Error::success();
}

void forEachIndex(KernelBuilder &kb, int64_t count,
                  llvm::function_ref<void(llvm::Value *)> body,
                  const llvm::Twine &name) {
  if (count == 1)
    body(kb.idx(0));
  else
    kb.loop(count, body, name);
}

void emitByteCopy(KernelBuilder &kb, llvm::Value *src, llvm::Value *dst,
                  uint64_t bytes) {
  llvm::Type *i8 = kb.b.getInt8Ty();
  kb.loop(bytes, [&](llvm::Value *i) { kb.store(kb.load(i8, src, i), dst, i); });
}

} // namespace codegen
} // namespace kiln
