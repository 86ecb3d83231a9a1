#include "compiler/codegen/Kernels.h"

namespace kiln {
namespace codegen {

KernelEmitter findKernelEmitter(OpKind kind) {
  switch (kind) {
  case OpKind::Conv: return emitConv;
  case OpKind::MatMul: return emitMatMul;
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div: return emitBinary;
  case OpKind::Relu:
  case OpKind::LeakyRelu:
  case OpKind::Clip:
  case OpKind::Sigmoid:
  case OpKind::Tanh: return emitUnary;
  case OpKind::MaxPool:
  case OpKind::AveragePool: return emitPool;
  case OpKind::Softmax: return emitSoftmax;
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

void emitByteCopy(KernelBuilder &kb, llvm::Value *src, llvm::Value *dst,
                  uint64_t bytes) {
  llvm::Type *i8 = kb.b.getInt8Ty();
  kb.loop(bytes, [&](llvm::Value *i) { kb.store(kb.load(i8, src, i), dst, i); });
}

} // namespace codegen
} // namespace kiln
