//===- NonZeroImport.cpp - NonZero of a constant, folded at import --------===//
//
// NonZero's result has as many columns as its input has non-zero elements:
// a shape that depends on the data, which kiln cannot plan. Of a constant,
// the result is a constant too. PyTorch's exports before opset 11 write
// torch.arange(n) as NonZero(ConstantOfShape(n, 1)).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxModelImporter.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

llvm::Error OnnxModelImporter::importNonZero(const onnx::NodeProto &np, llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &msg) { return nodeError(name, "NonZero", msg); };
  if (np.input_size() != 1 || np.output_size() != 1)
    return fail("needs one input and one output");
  auto in = inputValue(name, "NonZero", np.input(0));
  if (!in)
    return in.takeError();
  if (!(*in)->isConstant())
    return fail("its input is computed at run time, and a result whose shape depends on the "
                "input data is not supported: kiln plans all memory at compile time for static "
                "shapes (a NonZero of a constant folds at import)");
  const Tensor &x = (*in)->getConstant();
  // A scalar is a vector of one element, as in ONNX Runtime.
  Shape shape(x.getShape());
  if (shape.empty())
    shape.push_back(1);
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> found;
  for (int64_t i = 0, e = x.numElements(); i < e; ++i)
    if (x.getAsDouble(i) != 0)
      found.push_back(i);
  const int64_t count = static_cast<int64_t>(found.size());
  Tensor y(TensorType(DType::I64, {rank, count}));
  for (int64_t k = 0; k < count; ++k)
    for (int64_t d = rank - 1, flat = found[k]; d >= 0; --d) {
      y.setFromDouble(d * count + k, double(flat % shape[d]));
      flat /= shape[d];
    }
  if (auto err = graph_->checkNewConstant("the result of node '" + name + "'",
                                          y.sizeInBytes()))
    return err;
  return define(np.output(0), graph_->addConstant(np.output(0), std::move(y)));
}

} // namespace kiln
