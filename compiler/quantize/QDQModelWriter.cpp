#include "compiler/quantize/QDQModelWriter.h"

#include "compiler/frontend/onnx/OpsetInputs.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/RecurrentShape.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

namespace kiln {
namespace {

std::optional<int> onnxDataType(DType t) {
  switch (t) {
  case DType::F32: return onnx::TensorProto::FLOAT;
  case DType::I8: return onnx::TensorProto::INT8;
  case DType::U8: return onnx::TensorProto::UINT8;
  case DType::I32: return onnx::TensorProto::INT32;
  case DType::I64: return onnx::TensorProto::INT64;
  default: return std::nullopt;
  }
}

llvm::Error writerError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error setValueInfo(onnx::ValueInfoProto &info, llvm::StringRef name,
                         const TensorType &t) {
  std::optional<int> type = onnxDataType(t.dtype);
  if (!type)
    return writerError("tensor '" + name + "' is " + t.str() +
                       ", which the QDQ model cannot hold");
  info.set_name(name.str());
  auto *tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(*type);
  auto *shape = tensor->mutable_shape();
  for (int64_t d : t.shape)
    shape->add_dim()->set_dim_value(d);
  return llvm::Error::success();
}

llvm::Error addAttribute(onnx::NodeProto &node, const Node &n,
                         llvm::StringRef name, const Attr &a) {
  onnx::AttributeProto *p = node.add_attribute();
  p->set_name(name.str());
  switch (a.getKind()) {
  case AttrKind::Int:
    p->set_type(onnx::AttributeProto::INT);
    p->set_i(a.getInt());
    return llvm::Error::success();
  case AttrKind::Float:
    p->set_type(onnx::AttributeProto::FLOAT);
    p->set_f(a.getFloat());
    return llvm::Error::success();
  case AttrKind::String:
    p->set_type(onnx::AttributeProto::STRING);
    p->set_s(a.getString().str());
    return llvm::Error::success();
  case AttrKind::Ints:
    p->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : a.getInts())
      p->add_ints(v);
    return llvm::Error::success();
  case AttrKind::Floats:
    p->set_type(onnx::AttributeProto::FLOATS);
    for (float v : a.getFloats())
      p->add_floats(v);
    return llvm::Error::success();
  default:
    return nodeError(n, "attribute '" + name + "' has no ONNX form");
  }
}

/// RNN, GRU and LSTM: ONNX's `activations` (listed per direction) and their
/// parameters, consumed in order, from kiln's slots where one is not ONNX's
/// default.
void addRecurrentActivations(onnx::NodeProto &node, const Node &n) {
  const unsigned count = recurrentActivationCount(n.getKind());
  bool defaults = true;
  for (unsigned i = 0; i < count; ++i)
    defaults &= recurrentActivation(n, i) == defaultRecurrentActivation(n.getKind(), i);
  if (defaults)
    return;
  onnx::AttributeProto names, alphas, betas;
  names.set_name("activations");
  names.set_type(onnx::AttributeProto::STRINGS);
  alphas.set_name("activation_alpha");
  betas.set_name("activation_beta");
  const int dirs = RecurrentView(n).direction() == "bidirectional" ? 2 : 1;
  for (int d = 0; d < dirs; ++d)
    for (unsigned i = 0; i < count; ++i) {
      const Activation &a = recurrentActivation(n, i);
      names.add_strings(a.getName().str());
      llvm::ArrayRef<ActivationParam> params = activationParams(a.getKind());
      for (size_t k = 0; k < params.size(); ++k)
        (llvm::StringRef(params[k].name) == "alpha" ? alphas : betas)
            .add_floats(a.getParams()[k]);
    }
  *node.add_attribute() = std::move(names);
  for (onnx::AttributeProto *list : {&alphas, &betas})
    if (list->floats_size()) {
      list->set_type(onnx::AttributeProto::FLOATS);
      *node.add_attribute() = std::move(*list);
    }
}

/// The ONNX tensor name of each value: its own, except for a value whose
/// name a graph output of another value takes (a quantized output is the
/// DequantizeLinear of the float result that had its name).
class TensorNames {
public:
  explicit TensorNames(const Graph &g) {
    for (const Value *v : g.getInputs())
      used[v->getName()] = v;
    for (const Value *v : g.getConstants())
      used[v->getName()] = v;
    for (const Node *n : g.getNodes())
      for (const Value *v : n->getOutputs())
        used[v->getName()] = v;
    for (const GraphOutput &o : g.getOutputs()) {
      const Value *holder = used.lookup(o.name);
      if (!holder || holder == o.value)
        continue;
      std::string fresh = o.name + "_float";
      for (unsigned k = 1; used.count(fresh); ++k)
        fresh = o.name + "_float" + std::to_string(k);
      used[fresh] = holder;
      renamed[holder] = fresh;
    }
  }

  std::string operator()(const Value *v) const {
    auto it = renamed.find(v);
    return it != renamed.end() ? it->second : v->getName().str();
  }

private:
  llvm::StringMap<const Value *> used;
  llvm::DenseMap<const Value *, std::string> renamed;
};

/// An initializer holding `a`, the attribute behind the opset input `row`
/// of `n`.
llvm::Expected<onnx::TensorProto> inputFromAttr(const Node &n,
                                                const OpsetInput &row,
                                                const Attr &a) {
  onnx::TensorProto t;
  switch (row.value) {
  case InputValue::Ints:
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(a.getInts().size());
    for (int64_t v : a.getInts())
      t.add_int64_data(v);
    return t;
  case InputValue::Int:
  case InputValue::IntOfAnyType:
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_int64_data(a.getInt());
    return t;
  case InputValue::Float:
    // The input has the data's type; kiln's float attributes are of f32 ops.
    if (n.getInput(0)->getType().dtype != DType::F32)
      break;
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_float_data(a.getFloat());
    return t;
  case InputValue::Tensor: break;
  }
  return nodeError(n, "attribute '" + llvm::StringRef(row.attr) +
                          "' has no ONNX input form here");
}

} // namespace

llvm::Expected<std::string> writeQDQModel(const Graph &g) {
  TensorNames nameOf(g);
  onnx::ModelProto model;
  model.set_ir_version(7);
  model.set_producer_name("kiln");
  model.add_opset_import()->set_version(kQDQModelOpset);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name(g.getName().str());
  for (const Value *in : g.getInputs())
    if (auto err = setValueInfo(*graph->add_input(), nameOf(in), in->getType()))
      return std::move(err);
  for (const Value *c : g.getConstants()) {
    const Tensor &t = c->getConstant();
    std::optional<int> type = onnxDataType(t.getDType());
    if (!type)
      return writerError("constant '" + c->getName() + "' is " +
                         t.getType().str() + ", which ONNX cannot hold here");
    onnx::TensorProto *p = graph->add_initializer();
    p->set_name(nameOf(c));
    p->set_data_type(*type);
    for (int64_t d : t.getShape())
      p->add_dims(d);
    p->set_raw_data(t.raw().data(), t.sizeInBytes());
  }
  for (const Node *n : g.getNodes()) {
    if (n->getOpName().starts_with("kiln."))
      return nodeError(*n, "a kiln op has no ONNX form");
    onnx::NodeProto *node = graph->add_node();
    node->set_name(n->getName().str());
    node->set_op_type(n->getOpName().str());
    std::vector<std::string> inputs;
    for (const Value *in : n->getInputs())
      inputs.push_back(in ? nameOf(in) : "");
    // kiln holds as attributes what opset kQDQModelOpset takes as inputs.
    llvm::StringSet<> asInputs;
    for (const OpsetInput &row : opsetInputs()) {
      const Attr *a = n->getAttr(row.attr);
      if (n->getOpName() != row.opType || row.getAttrRemovedIn() > kQDQModelOpset ||
          !a)
        continue;
      auto t = inputFromAttr(*n, row, *a);
      if (!t)
        return t.takeError();
      std::string name = n->getName().str() + "/" + row.getInputName().str();
      t->set_name(name);
      *graph->add_initializer() = std::move(*t);
      inputs.resize(std::max<size_t>(inputs.size(), row.input + 1));
      inputs[row.input] = name;
      asInputs.insert(row.attr);
    }
    for (const std::string &in : inputs)
      node->add_input(in);
    for (const Value *out : n->getOutputs())
      node->add_output(nameOf(out));
    const bool recurrent = isRecurrentOp(n->getKind());
    if (recurrent)
      addRecurrentActivations(*node, *n);
    for (const auto &[name, attr] : n->getAttrs()) {
      if (asInputs.count(name) ||
          (recurrent && llvm::is_contained(kRecurrentActivationAttrs, name)))
        continue;
      // kiln's own attributes at their defaults (no fused activation) say
      // nothing ONNX would not.
      if (attr.getKind() == AttrKind::Activation && attr.getActivation().isNone())
        continue;
      // The reductions but ReduceSum take noop_with_empty_axes from opset
      // 18 on; before, an empty axes list means all axes. Set with axes
      // given, it changes nothing.
      if (name == "noop_with_empty_axes" && !n->is(OpKind::ReduceSum) &&
          kQDQModelOpset < 18) {
        auto axes = ReduceView(*n).axes();
        if (attr.getInt() != 0 && (!axes || axes->empty()))
          return nodeError(*n, "noop_with_empty_axes over no axes has no opset " +
                                   std::to_string(kQDQModelOpset) + " form");
        continue;
      }
      if (auto err = addAttribute(*node, *n, name, attr))
        return std::move(err);
    }
  }
  for (const GraphOutput &o : g.getOutputs()) {
    // An ONNX graph output is a tensor name: one renamed by a rewrite is an
    // Identity of the value.
    if (o.name != nameOf(o.value)) {
      onnx::NodeProto *id = graph->add_node();
      id->set_name(o.name + "/output");
      id->set_op_type("Identity");
      id->add_input(nameOf(o.value));
      id->add_output(o.name);
    }
    if (auto err = setValueInfo(*graph->add_output(), o.name, o.value->getType()))
      return std::move(err);
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return writerError("cannot serialize the QDQ model");
  return std::move(bytes);
}

} // namespace kiln
