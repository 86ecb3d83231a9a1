#include "compiler/codegen/Kernels.h"

namespace kiln {
namespace codegen {

KernelEmitter findKernelEmitter(OpKind kind) {
  switch (kind) {
  case OpKind::Conv: return emitConv;
  case OpKind::MatMul: return emitMatMul;
#define KILN_OP(Name)
#define KILN_ELEMENTWISE_OP(Name) case OpKind::Name:
#include "compiler/graph/OpKinds.def"
    return emitElementwise;
#define KILN_OP(Name)
#define KILN_REDUCE_OP(Name) case OpKind::Name:
#include "compiler/graph/OpKinds.def"
    return emitReduce;
  case OpKind::Gather:
  case OpKind::GatherElements:
  case OpKind::GatherND: return emitGather;
  case OpKind::ScatterElements:
  case OpKind::ScatterND: return emitScatter;
  case OpKind::Expand: return emitExpand;
  case OpKind::Slice: return emitSlice;
  case OpKind::ConvTranspose: return emitConvTranspose;
  case OpKind::MaxPool:
  case OpKind::AveragePool: return emitPlanePool;
  case OpKind::Softmax:
  case OpKind::LogSoftmax:
  case OpKind::Hardmax: return emitSoftmax;
  case OpKind::Transpose: return emitTranspose;
  case OpKind::Concat: return emitConcat;
  case OpKind::Pad: return emitPad;
  default: return nullptr;
  }
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
