//===- MovementKernels.cpp - Transpose, Concat, Pad -----------------------===//
//
// All three are strided copies: Transpose reads with permuted strides,
// Concat writes each input into its slice of the output, Pad fills the
// border and copies the input into the interior. They work on any dtype.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"

namespace kiln {
namespace codegen {

llvm::Error emitTranspose(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &it = n.getInput(0)->getType();
  const TensorType &ot = n.getOutput()->getType();
  size_t rank = it.rank();
  Shape perm;
  if (const Attr *p = n.getAttr("perm"))
    perm.assign(p->getInts().begin(), p->getInts().end());
  else
    for (size_t i = 0; i < rank; ++i)
      perm.push_back(rank - 1 - i);
  Shape inStrides = rowMajorStrides(it.shape), srcStrides;
  for (int64_t p : perm)
    srcStrides.push_back(inStrides[p]);
  kb.stridedCopy(kb.elemType(it.dtype), ot.shape, args.inputs[0], srcStrides, 0,
                 args.outputs[0], rowMajorStrides(ot.shape), 0);
  return llvm::Error::success();
}

llvm::Error emitConcat(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &ot = n.getOutput()->getType();
  int64_t axis = n.getInt("axis");
  if (axis < 0)
    axis += ot.rank();
  Shape outStrides = rowMajorStrides(ot.shape);
  int64_t offset = 0;
  for (size_t i = 0; i < n.getNumInputs(); ++i) {
    const TensorType &it = n.getInput(i)->getType();
    kb.stridedCopy(kb.elemType(it.dtype), it.shape, args.inputs[i],
                   rowMajorStrides(it.shape), 0, args.outputs[0], outStrides,
                   offset * outStrides[axis]);
    offset += it.shape[axis];
  }
  return llvm::Error::success();
}

llvm::Error emitPad(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (n.getString("mode") != "constant")
    return nodeError(n, "the code generator supports Pad mode 'constant' only, got '" +
                            n.getString("mode") + "'");
  if (auto e = requireF32(n, n.getInput(0)))
    return e;
  const TensorType &it = n.getInput(0)->getType();
  const TensorType &ot = n.getOutput()->getType();
  llvm::ArrayRef<int64_t> pads = n.getInts("pads");
  size_t rank = it.rank();
  Shape outStrides = rowMajorStrides(ot.shape);
  // Negative pads crop: read from inside the input instead.
  int64_t dstOffset = 0, srcOffset = 0;
  Shape inStrides = rowMajorStrides(it.shape), copyShape;
  for (size_t d = 0; d < rank; ++d) {
    int64_t begin = pads[d], end = pads[d + rank];
    dstOffset += std::max<int64_t>(begin, 0) * outStrides[d];
    srcOffset += std::max<int64_t>(-begin, 0) * inStrides[d];
    copyShape.push_back(it.shape[d] + std::min<int64_t>(begin, 0) +
                        std::min<int64_t>(end, 0));
  }
  llvm::Value *fill = kb.f32(n.getFloat("value"));
  kb.loop(ot.numElements(), [&](llvm::Value *i) { kb.store(fill, args.outputs[0], i); });
  kb.stridedCopy(kb.b.getFloatTy(), copyShape, args.inputs[0], inStrides, srcOffset,
                 args.outputs[0], outStrides, dstOffset);
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
