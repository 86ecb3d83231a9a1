//===- AdapterUtils.cpp - Shared pieces of the opset adapters -------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"
#include "compiler/frontend/onnx/OnnxImporter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln {

llvm::Expected<const Tensor *> constantInput(const PendingNode &n, unsigned i,
                                             llvm::StringRef what) {
  Value *v = n.getInput(i);
  if (!v)
    return n.error(llvm::formatv("input {0} ({1}) is missing", i, what));
  if (!v->isConstant())
    return llvm::make_error<NonConstantInputError>(
        llvm::toString(n.error(llvm::formatv(
            "input {0} ({1}) must be a constant (run-time shapes are not "
            "supported); '{2}' is {3}",
            i, what, v->getName(),
            v->isInput() ? "a graph input: give it a value with --const-input "
                           "NAME=FILE.npy"
                         : "computed at run time"))),
        v->getName().str());
  return &v->getConstant();
}

llvm::Expected<llvm::SmallVector<int64_t, 8>>
intsInput(const PendingNode &n, unsigned i, llvm::StringRef what) {
  auto t = constantInput(n, i, what);
  if (!t)
    return t.takeError();
  DType dt = (*t)->getDType();
  if ((dt != DType::I64 && dt != DType::I32) || (*t)->getShape().size() > 1)
    return n.error(llvm::formatv("input {0} ({1}) must be a 1-D int64 or "
                                 "int32 tensor, got {2}",
                                 i, what, (*t)->getType().str()));
  llvm::SmallVector<int64_t, 8> v;
  for (int64_t k = 0, e = (*t)->numElements(); k < e; ++k)
    v.push_back((*t)->getAsInt(k));
  return v;
}

llvm::Expected<float> scalarInput(const PendingNode &n, unsigned i,
                                  llvm::StringRef what) {
  auto t = constantInput(n, i, what);
  if (!t)
    return t.takeError();
  if ((*t)->numElements() != 1 || (*t)->getDType() == DType::F16)
    return n.error(llvm::formatv("input {0} ({1}) must be a one-element "
                                 "tensor of a non-f16 type, got {2}",
                                 i, what, (*t)->getType().str()));
  return static_cast<float>((*t)->getAsDouble(0));
}

llvm::Error checkMaxInputs(const PendingNode &n, unsigned maxInputs) {
  if (n.inputs.size() <= maxInputs)
    return llvm::Error::success();
  return n.error(llvm::formatv("expects at most {0} inputs, got {1}", maxInputs,
                               n.inputs.size()));
}

llvm::Expected<int64_t> intAttr(const PendingNode &n, llvm::StringRef attr,
                                int64_t dflt) {
  auto it = n.attrs.find(attr);
  if (it == n.attrs.end())
    return dflt;
  if (it->second.getKind() != AttrKind::Int)
    return n.error("attribute '" + attr + "' must be int");
  return it->second.getInt();
}

llvm::Expected<int64_t> axisAttr(const PendingNode &n, llvm::StringRef attr,
                                 std::optional<int64_t> dflt, int64_t rank) {
  if (!dflt && !n.attrs.count(attr))
    return n.error("needs an int attribute '" + attr + "'");
  auto axis = intAttr(n, attr, dflt.value_or(0));
  if (!axis)
    return axis.takeError();
  if (*axis < -rank || *axis >= rank)
    return n.error(llvm::formatv("{0} {1} is out of range for rank {2}", attr,
                                 *axis, rank));
  return *axis < 0 ? *axis + rank : *axis;
}

llvm::Expected<int64_t> scalarIntInput(const PendingNode &n, unsigned i,
                                       llvm::StringRef what) {
  auto ints = intsInput(n, i, what);
  if (!ints)
    return ints.takeError();
  if (ints->size() != 1)
    return n.error(llvm::formatv("input {0} ({1}) must hold one value", i,
                                 what));
  return (*ints)[0];
}

llvm::Expected<Value *> reshapeTo(NodeEmitter &e, const PendingNode &n,
                                  Value *v, llvm::ArrayRef<int64_t> shape,
                                  llvm::StringRef suffix) {
  AttrMap attrs{{"shape", Attr::ofInts(shape)}};
  if (llvm::is_contained(shape, 0))
    attrs["allowzero"] = Attr::ofInt(1);
  auto r = e.emit(OpKind::Reshape, n.name + "/" + suffix.str(), {v},
                  std::move(attrs), {});
  if (!r)
    return r.takeError();
  return (*r)[0];
}

Value *Formula::add(llvm::StringRef role, OpKind kind,
                    llvm::ArrayRef<Value *> in, AttrMap attrs,
                    const std::string &resultName) {
  if (err || llvm::is_contained(in, nullptr))
    return nullptr;
  auto r = e.emit(kind, n.name + "/" + role.str(), in, std::move(attrs),
                  {resultName});
  if (!r) {
    err = r.takeError();
    return nullptr;
  }
  return (*r)[0];
}

Value *Formula::constant(llvm::StringRef role, Tensor t) {
  Graph &g = e.getGraph();
  return g.addConstant(g.uniqueName(n.name + "/" + role.str()), std::move(t));
}

Value *Formula::scalar(llvm::StringRef role, float v) {
  Tensor t(TensorType(DType::F32, {}));
  t.data<float>()[0] = v;
  return constant(role, std::move(t));
}

Value *Formula::reduce(llvm::StringRef role, OpKind kind, Value *x,
                       llvm::ArrayRef<int64_t> axes, bool keepDims) {
  return add(role, kind, {x},
             {{"axes", Attr::ofInts(axes)},
              {"keepdims", Attr::ofInt(keepDims)},
              {"noop_with_empty_axes", Attr::ofInt(0)}});
}

} // namespace kiln
