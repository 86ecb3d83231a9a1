#include "compiler/passes/QDQGroups.h"

namespace kiln {

bool isQuantMove(const Node &n) {
  switch (n.getKind()) {
  case OpKind::Flatten:
  case OpKind::Reshape:
  case OpKind::Transpose:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze:
  case OpKind::Identity: return true;
  case OpKind::MaxPool: return n.getNumOutputs() == 1;
  default: return false;
  }
}

bool isFusableClamp(const Activation &a) {
  llvm::ArrayRef<float> p = a.getParams();
  return a.getKind() == ActivationKind::Relu ||
         (a.getKind() == ActivationKind::Clip &&
          ((p[0] == 0 && p[1] == 6) || (p[0] == -1 && p[1] == 1)));
}

bool takesFusedClamp(const Node &n) {
  return n.is(OpKind::Conv) || n.is(OpKind::MatMul) || n.is(OpKind::Gemm) ||
         n.is(OpKind::Add) || n.is(OpKind::Sub) || n.is(OpKind::Mul);
}

} // namespace kiln
