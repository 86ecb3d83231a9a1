#include "compiler/frontend/tflite/TFLiteImporter.h"

#include "compiler/frontend/tflite/TFLiteModel.h"
#include "compiler/frontend/tflite/TFLiteOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <vector>

namespace kiln {

bool isTFLiteModel(llvm::StringRef bytes) {
  return bytes.size() >= 8 && bytes.substr(4, 4) == "TFL3";
}

namespace tflite_import {
namespace {

llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

class Importer {
public:
  Importer(const tflite::Model &model, Graph &g)
      : model_(model), sg_(*model.subgraphs()->Get(0)), g_(g) {}

  llvm::Error run();

private:
  unsigned numTensors() const { return sg_.tensors() ? sg_.tensors()->size() : 0; }
  const tflite::Tensor &tensor(int i) const { return *sg_.tensors()->Get(i); }
  std::string nodeName(const tflite::Operator &op) const;
  std::string opName(const tflite::Operator &op) const;
  llvm::Error checkIndices();
  /// Every op kiln cannot import, in one error.
  llvm::Error checkSupported();
  llvm::Expected<Value *> valueOf(int index);
  llvm::Error importOp(const tflite::Operator &op);

  const tflite::Model &model_;
  const tflite::SubGraph &sg_;
  Graph &g_;
  std::vector<TensorType> types_;
  std::vector<Value *> values_;
};

std::string Importer::nodeName(const tflite::Operator &op) const {
  if (op.outputs() && op.outputs()->size())
    return tensorName(tensor(op.outputs()->Get(0)), op.outputs()->Get(0));
  return "op";
}

std::string Importer::opName(const tflite::Operator &op) const {
  const tflite::OperatorCode &code =
      *model_.operator_codes()->Get(op.opcode_index());
  if (builtinCode(code) == tflite::BuiltinOperator_CUSTOM)
    return "CUSTOM " + (code.custom_code() ? code.custom_code()->str() : "?");
  return builtinName(builtinCode(code));
}

llvm::Error Importer::checkIndices() {
  const unsigned n = numTensors();
  auto checkList = [&](const flatbuffers::Vector<int32_t> *list, bool optional,
                       const llvm::Twine &what) -> llvm::Error {
    if (!list)
      return llvm::Error::success();
    for (int32_t i : *list)
      if (!(i >= 0 && unsigned(i) < n) && !(optional && i == -1))
        return error(what + llvm::formatv(" refers to tensor {0}, but the "
                                          "subgraph has {1}",
                                          i, n));
    return llvm::Error::success();
  };
  if (auto err = checkList(sg_.inputs(), false, "a subgraph input"))
    return err;
  if (auto err = checkList(sg_.outputs(), false, "a subgraph output"))
    return err;
  if (!sg_.operators())
    return llvm::Error::success();
  for (unsigned k = 0; k < sg_.operators()->size(); ++k) {
    const tflite::Operator &op = *sg_.operators()->Get(k);
    if (op.opcode_index() >= model_.operator_codes()->size())
      return error(llvm::formatv("operator {0} has opcode index {1}, but the "
                                 "model has {2} operator codes",
                                 k, op.opcode_index(),
                                 model_.operator_codes()->size()));
    std::string what = llvm::formatv("operator {0}", k);
    if (auto err = checkList(op.inputs(), true, what + "'s input"))
      return err;
    if (auto err = checkList(op.outputs(), false, what + "'s output"))
      return err;
    if (!op.outputs() || op.outputs()->size() == 0)
      return error(what + " has no outputs");
  }
  return llvm::Error::success();
}

llvm::Error Importer::checkSupported() {
  std::vector<std::string> problems;
  for (const tflite::Operator *op : *sg_.operators()) {
    const tflite::OperatorCode &code =
        *model_.operator_codes()->Get(op->opcode_index());
    std::string where = "node '" + nodeName(*op) + "' (" + opName(*op) + ")";
    if (builtinCode(code) == tflite::BuiltinOperator_CUSTOM) {
      problems.push_back(where + ": custom ops are not supported");
      continue;
    }
    if (!findOpImporter(builtinCode(code))) {
      problems.push_back(where);
      continue;
    }
    // Tensor types kiln does not handle, named by op and tensor.
    for (const auto *list : {op->inputs(), op->outputs()}) {
      if (!list)
        continue;
      for (int32_t i : *list) {
        if (i < 0)
          continue;
        const tflite::Tensor &t = tensor(i);
        tflite::TensorType tt = t.type();
        bool constant = hasData(model_, t);
        // int16 only as data or a state (the integer LSTM's cell state):
        // an int16 activation between ops is not supported.
        bool ok = tt == tflite::TensorType_FLOAT32 ||
                  tt == tflite::TensorType_INT8 ||
                  (constant && (tt == tflite::TensorType_INT32 ||
                                tt == tflite::TensorType_INT64)) ||
                  (tt == tflite::TensorType_INT16 && (constant || t.is_variable()));
        if (!ok) {
          const char *name = tflite::EnumNameTensorType(tt);
          problems.push_back(where + ": tensor '" + tensorName(t, i) + "' is " +
                             (name && *name ? name : "?") +
                             (tt == tflite::TensorType_INT16
                                  ? " (int16 activations are not supported)"
                                  : " (not supported)"));
        }
      }
    }
  }
  if (problems.empty())
    return llvm::Error::success();
  std::string msg = "unsupported ops: ";
  for (size_t i = 0; i < problems.size(); ++i)
    msg += (i ? ", " : "") + problems[i];
  return error(msg);
}

llvm::Expected<Value *> Importer::valueOf(int index) {
  if (values_[index])
    return values_[index];
  const tflite::Tensor &t = tensor(index);
  // A variable tensor (an LSTM's state) without data starts at zero, as
  // TFLite allocates it, an int8 one at its zero point (TFLM's
  // ResetVariableTensors); a bundle is stateless, so every run starts there.
  if (!hasData(model_, t) && t.is_variable()) {
    if (auto err = g_.checkNewConstant("tensor '" + tensorName(t, index) + "'",
                                       types_[index].sizeInBytes()))
      return std::move(err);
    Tensor start(types_[index]);
    const QuantParams &q = types_[index].quant;
    if (types_[index].dtype == DType::I8 && q.isQuantized())
      std::fill_n(start.data<int8_t>(), start.numElements(), int8_t(q.zeroPoints[0]));
    values_[index] = g_.addConstant(tensorName(t, index), std::move(start));
    return values_[index];
  }
  if (!hasData(model_, t))
    return error("tensor '" + tensorName(t, index) +
                 "' is read before any op produces it, and has no data");
  if (auto err = g_.checkNewConstant("tensor '" + tensorName(t, index) + "'",
                                     types_[index].sizeInBytes()))
    return std::move(err);
  auto data = constantData(model_, t, index, types_[index]);
  if (!data)
    return data.takeError();
  values_[index] = g_.addConstant(tensorName(t, index), std::move(*data));
  return values_[index];
}

llvm::Error Importer::importOp(const tflite::Operator &op) {
  const tflite::OperatorCode &code =
      *model_.operator_codes()->Get(op.opcode_index());
  llvm::SmallVector<Value *, 3> inputs;
  if (op.inputs())
    for (int32_t i : *op.inputs()) {
      if (i < 0) {
        inputs.push_back(nullptr);
        continue;
      }
      auto v = valueOf(i);
      if (!v)
        return nodeError(nodeName(op), opName(op), llvm::toString(v.takeError()));
      inputs.push_back(*v);
    }
  llvm::SmallVector<TensorType, 1> outTypes;
  for (int32_t i : *op.outputs())
    outTypes.push_back(types_[i]);
  OpContext ctx(g_, op, nodeName(op), opName(op), inputs, outTypes);
  if (auto err = findOpImporter(builtinCode(code))(ctx))
    return err;
  if (ctx.results.size() != op.outputs()->size())
    return ctx.error(llvm::formatv("the model declares {0} outputs, the op "
                                   "has {1}",
                                   op.outputs()->size(), ctx.results.size()));
  for (unsigned k = 0; k < op.outputs()->size(); ++k) {
    int32_t i = op.outputs()->Get(k);
    Value *v = ctx.results[k];
    // kiln's type rules recompute what TFLite declares; a difference means
    // kiln would not compute what the model says.
    if (v->getType() != types_[i])
      return ctx.error("kiln infers " + v->getType().str() + " for '" +
                       tensorName(tensor(i), i) + "', the model declares " +
                       types_[i].str());
    if (values_[i])
      return ctx.error("tensor '" + tensorName(tensor(i), i) +
                       "' is written twice");
    if (v->isResult())
      g_.renameValue(v, tensorName(tensor(i), i));
    values_[i] = v;
  }
  return llvm::Error::success();
}

llvm::Error Importer::run() {
  if (auto err = checkIndices())
    return err;
  // Ops and tensor types kiln lacks first, all in one message.
  if (sg_.operators())
    if (auto err = checkSupported())
      return err;
  types_.resize(numTensors());
  values_.assign(numTensors(), nullptr);
  for (unsigned i = 0; i < numTensors(); ++i) {
    auto type = tensorType(tensor(i), i);
    if (!type)
      return type.takeError();
    types_[i] = std::move(*type);
  }
  if (!sg_.inputs() || sg_.inputs()->size() == 0)
    return error("the model has no inputs");
  for (int32_t i : *sg_.inputs()) {
    if (values_[i])
      return error("tensor '" + tensorName(tensor(i), i) +
                   "' is listed twice as a model input");
    if (hasData(model_, tensor(i)))
      return error("model input '" + tensorName(tensor(i), i) + "' has data");
    values_[i] = g_.addInput(tensorName(tensor(i), i), types_[i]);
  }
  if (sg_.operators())
    for (const tflite::Operator *op : *sg_.operators())
      if (auto err = importOp(*op))
        return err;
  if (!sg_.outputs() || sg_.outputs()->size() == 0)
    return error("the model has no outputs");
  for (int32_t i : *sg_.outputs()) {
    auto v = valueOf(i);
    if (!v)
      return v.takeError();
    g_.addOutput(tensorName(tensor(i), i), *v);
  }
  return llvm::Error::success();
}

} // namespace
} // namespace tflite_import

llvm::Expected<std::unique_ptr<Graph>>
importTFLiteBuffer(llvm::StringRef bytes, llvm::StringRef modelName,
                   const ResourceLimits &limits) {
  auto model = tflite_import::verifyModel(bytes, modelName);
  if (!model)
    return model.takeError();
  auto g = std::make_unique<Graph>(modelName);
  g->setLimits(limits);
  tflite_import::Importer importer(**model, *g);
  if (auto err = importer.run())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   modelName + ": " + llvm::toString(std::move(err)));
  return std::move(g);
}

} // namespace kiln
