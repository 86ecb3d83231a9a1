//===- OnnxImporter.cpp - ONNX models to kiln graphs ----------------------===//
//
// Model-level import: parsing, version checks, graph inputs, initializers,
// Constant nodes and graph outputs. Each other node is resolved here and
// handed to the opset adapters (OpsetAdapters.h), which emit it through a
// folding NodeEmitter.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/frontend/onnx/ExternalData.h"
#include "compiler/frontend/onnx/Gradient.h"
#include "compiler/frontend/onnx/LocalFunctions.h"
#include "compiler/frontend/onnx/NodeEmitter.h"
#include "compiler/frontend/onnx/NodeNames.h"
#include "compiler/frontend/onnx/OnnxModelImporter.h"
#include "compiler/frontend/onnx/OpsetAdapters.h"
#include "compiler/frontend/onnx/RecurrentActivations.h"
#include "compiler/frontend/onnx/SequenceImport.h"
#include "compiler/frontend/onnx/TensorProto.h"
#include "compiler/frontend/onnx/UnsupportedOps.h"
#include "compiler/graph/CheckedMath.h"
#include "compiler/ops/OnnxDTypes.h"
#include "compiler/ops/RecurrentShape.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "google/protobuf/io/coded_stream.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <limits>

namespace kiln {
namespace {

llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<Attr> convertAttr(const onnx::AttributeProto &a,
                                 ExternalDataFiles &external) {
  switch (a.type()) {
  case onnx::AttributeProto::INT: return Attr::ofInt(a.i());
  case onnx::AttributeProto::FLOAT: return Attr::ofFloat(a.f());
  case onnx::AttributeProto::STRING: return Attr::ofString(a.s());
  case onnx::AttributeProto::INTS:
    return Attr::ofInts(
        llvm::SmallVector<int64_t, 8>(a.ints().begin(), a.ints().end()));
  case onnx::AttributeProto::FLOATS:
    return Attr::ofFloats(
        llvm::SmallVector<float, 8>(a.floats().begin(), a.floats().end()));
  case onnx::AttributeProto::TENSOR: {
    auto t = tensorFromProto(a.t(), &external);
    if (!t)
      return t.takeError();
    return Attr::ofTensor(std::move(*t));
  }
  default: break;
  }
  std::string kind =
      onnx::AttributeProto::AttributeType_IsValid(a.type())
          ? onnx::AttributeProto::AttributeType_Name(a.type())
          : llvm::formatv("<unknown kind {0}>", static_cast<int>(a.type()))
                .str();
  return makeError("attribute '" + a.name() + "' has kind " + kind +
                   ", which kiln does not support");
}

/// "f32[1,N,?]": a declared ONNX tensor type, for mismatch messages.
std::string declaredTypeStr(const onnx::TypeProto::Tensor &tt) {
  std::string s = onnxDTypeName(tt.elem_type()).str();
  if (!tt.has_shape())
    return s;
  s += '[';
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    s += i ? "," : "";
    s += d.has_dim_value()   ? std::to_string(d.dim_value())
         : d.has_dim_param() ? d.dim_param()
                             : std::string("?");
  }
  return s + ']';
}

} // namespace

char NonConstantInputError::ID = 0;

llvm::Expected<std::unique_ptr<Graph>> OnnxModelImporter::run() {
  if (model_.ir_version() < 3)
    return makeError(llvm::formatv(
        "ir_version {0} is not supported; kiln needs ir_version >= 3",
        model_.ir_version()));
  auto opset = defaultOpset();
  if (!opset)
    return opset.takeError();
  if (auto err = inlineLocalFunctions(model_, *opset, opts_.limits))
    return err;
  uint64_t nodes = 0;
  if (auto err = checkNesting(model_.graph(), 0, nodes))
    return err;
  if (auto err = checkOpsSupported(model_.graph()))
    return err;
  const onnx::GraphProto &g = model_.graph();
  if (g.node_size() == 0)
    return makeError("the model's graph is empty (it has no nodes)");
  if (g.output_size() == 0)
    return makeError("the model's graph has no outputs");
  if (auto err = importInitializers(g))
    return err;
  if (auto err = importInputs())
    return err;
  NodeEmitter emitter(*graph_, *opset);
  for (int i = 0; i < g.node_size(); ++i)
    if (auto err = importNode(emitter, g.node(i), i))
      return err;
  if (auto err = importOutputs())
    return err;
  // Initializers that became attributes, and inputs of folded nodes.
  graph_->eraseUnusedConstants();
  return std::move(graph_);
}

llvm::Expected<int64_t> OnnxModelImporter::defaultOpset() const {
  std::optional<int64_t> opset;
  for (const onnx::OperatorSetIdProto &id : model_.opset_import()) {
    if (!isDefaultDomain(id.domain()))
      continue;
    if (opset && *opset != id.version())
      return makeError(llvm::formatv(
          "the model imports the default ONNX domain twice (opsets {0} and "
          "{1})",
          *opset, id.version()));
    opset = id.version();
  }
  if (!opset) {
    std::string domains;
    for (const onnx::OperatorSetIdProto &id : model_.opset_import())
      domains += (domains.empty() ? "" : ", ") + id.domain();
    return makeError("the model imports only the domains " + domains +
                     ", which are not supported (only the default ONNX "
                     "domain is)");
  }
  if (*opset < kMinOnnxOpset || *opset > kMaxOnnxOpset)
    return makeError(llvm::formatv(
        "ONNX opset {0} is not supported; kiln supports opsets {1} to {2}",
        *opset, kMinOnnxOpset, kMaxOnnxOpset));
  return *opset;
}

/// Walks the subgraphs (If, Loop and Scan bodies) of `g`, at nesting
/// `depth`, and counts their nodes, so that a model nested or sized beyond
/// the limits is refused before anything is imported. The recursion is as
/// deep as the limit allows, and the parser allowed.
llvm::Error OnnxModelImporter::checkNesting(const onnx::GraphProto &g, uint64_t depth,
                                            uint64_t &nodes) const {
  const ResourceLimits &limits = opts_.limits;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &n = g.node(i);
    if (++nodes > limits.maxNodes)
      return nodeError(nodeDisplayName(n, i), n.op_type(),
                       llvm::formatv("the model has more than {0} nodes (--max-nodes)",
                                     limits.maxNodes));
    for (const onnx::AttributeProto &a : n.attribute()) {
      if (!a.has_g() && a.graphs_size() == 0)
        continue;
      if (depth + 1 > limits.maxSubgraphDepth)
        return nodeError(nodeDisplayName(n, i), n.op_type(),
                         llvm::formatv("subgraph '{0}' nests deeper than the limit of {1} "
                                       "levels (--max-subgraph-depth)",
                                       a.name(), limits.maxSubgraphDepth));
      if (a.has_g())
        if (auto err = checkNesting(a.g(), depth + 1, nodes))
          return err;
      for (const onnx::GraphProto &sub : a.graphs())
        if (auto err = checkNesting(sub, depth + 1, nodes))
          return err;
    }
  }
  return llvm::Error::success();
}

/// Lists every unsupported node of `g` in one message, so a user sees the
/// whole gap at once rather than one op per attempt. If and Loop pass: the
/// subgraphs they run are checked as they are imported (ControlFlow.cpp);
/// so does NonZero, which folds where its input is a constant.
llvm::Error OnnxModelImporter::checkOpsSupported(const onnx::GraphProto &g) const {
  std::string list;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &n = g.node(i);
    bool defaultDomain = isDefaultDomain(n.domain());
    if (defaultDomain && (isKnownOnnxOp(n.op_type()) || n.op_type() == "If" ||
                          n.op_type() == "Loop" || n.op_type() == "NonZero"))
      continue;
    if (n.domain() == kOnnxTrainingDomain && n.op_type() == "Gradient")
      continue;
    list += list.empty() ? "" : ", ";
    list += "node '" + nodeDisplayName(n, i) + "' (" + n.op_type();
    llvm::StringRef reason = unsupportedOpReason(n.op_type());
    if (defaultDomain && !reason.empty())
      list += ": " + reason.str();
    list += ")";
    if (!defaultDomain)
      list += " [domain " + n.domain() + "]";
  }
  if (list.empty())
    return llvm::Error::success();
  return makeError("unsupported ops: " + list);
}

llvm::Error OnnxModelImporter::define(const std::string &name, Value *v) {
  if (sequences_.count(name) || !values_.try_emplace(name, v).second)
    return makeError("value '" + name + "' is defined more than once");
  return llvm::Error::success();
}

llvm::Error OnnxModelImporter::importInitializers(const onnx::GraphProto &g) {
  if (g.sparse_initializer_size() > 0)
    return makeError("sparse initializers are not supported");
  for (const onnx::TensorProto &init : g.initializer()) {
    if (init.name().empty())
      return makeError("an initializer has no name");
    auto bytes = declaredTensorBytes(init);
    if (!bytes)
      return bytes.takeError();
    if (auto err = graph_->checkNewConstant("initializer '" + init.name() + "'", *bytes))
      return err;
    auto t = tensorFromProto(init, &external_);
    if (!t)
      return t.takeError();
    if (auto err = define(init.name(),
                          graph_->addConstant(init.name(), std::move(*t))))
      return err;
  }
  return llvm::Error::success();
}

/// Graph inputs backed by an initializer (ir_version >= 4 allows it, older
/// versions require it) are constants: kiln compiles the weights in.
llvm::Error OnnxModelImporter::importInputs() {
  llvm::StringSet<> listed, graphInputs;
  for (const onnx::ValueInfoProto &vi : model_.graph().input()) {
    if (vi.name().empty())
      return makeError("a graph input has no name");
    if (!listed.insert(vi.name()).second)
      return makeError("graph input '" + vi.name() + "' is listed twice");
    if (values_.count(vi.name()))
      continue;
    graphInputs.insert(vi.name());
    auto type = inputType(vi);
    if (!type)
      return type.takeError();
    auto fixed = opts_.constantInputs.find(vi.name());
    if (fixed == opts_.constantInputs.end()) {
      if (auto err = define(vi.name(), graph_->addInput(vi.name(), *type)))
        return err;
      continue;
    }
    if (fixed->second.getType() != *type)
      return makeError("input '" + vi.name() + "' is " + type->str() +
                       " but its constant value is " +
                       fixed->second.getType().str());
    if (auto err = graph_->checkNewConstant("the constant value of input '" + vi.name() + "'",
                                            fixed->second.sizeInBytes()))
      return err;
    if (auto err = define(vi.name(),
                          graph_->addConstant(vi.name(), fixed->second)))
      return err;
  }
  for (const auto &kv : opts_.constantInputs)
    if (!graphInputs.count(kv.first))
      return makeError("a constant value is given for '" + kv.first +
                       "', which is not a graph input");
  return llvm::Error::success();
}

llvm::Expected<TensorType>
OnnxModelImporter::inputType(const onnx::ValueInfoProto &vi) const {
  const std::string &name = vi.name();
  if (!vi.type().has_tensor_type())
    return makeError("input '" + name + "' is not a tensor");
  const onnx::TypeProto::Tensor &tt = vi.type().tensor_type();
  auto dtype = onnxElementType(tt.elem_type());
  if (!dtype)
    return makeError("input '" + name +
                     "': " + llvm::toString(dtype.takeError()));
  if (!tt.has_shape())
    return makeError("input '" + name +
                     "' has no shape; kiln compiles static shapes only");
  Shape shape;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const onnx::TensorShapeProto::Dimension &d = tt.shape().dim(i);
    int64_t value;
    if (d.has_dim_value()) {
      value = d.dim_value();
    } else if (d.has_dim_param()) {
      auto it = opts_.dimBindings.find(d.dim_param());
      if (it == opts_.dimBindings.end())
        return makeError(llvm::formatv(
            "input '{0}' dimension {1} is symbolic ('{2}'): bind it with "
            "--dim {2}=VALUE",
            name, i, d.dim_param()));
      value = it->second;
    } else {
      return makeError(
          llvm::formatv("input '{0}' dimension {1} has no value", name, i));
    }
    if (value < 0)
      return makeError(llvm::formatv("input '{0}' dimension {1} is negative "
                                     "({2})",
                                     name, i, value));
    shape.push_back(value);
  }
  if (!checkedElementCount(shape, kMaxTensorElements))
    return makeError("input '" + name + "' is too large");
  TensorType type(*dtype, shape);
  if (type.sizeInBytes() > opts_.limits.maxTensorBytes)
    return makeError(llvm::formatv("input '{0}' of {1} needs {2} bytes, over the limit of "
                                   "{3} bytes per tensor (--max-tensor-bytes)",
                                   name, type.str(), type.sizeInBytes(),
                                   opts_.limits.maxTensorBytes));
  return type;
}

llvm::Error OnnxModelImporter::importConstantNode(const onnx::NodeProto &np,
                                                  llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &msg) {
    return nodeError(name, "Constant", msg);
  };
  if (np.output_size() != 1 || np.output(0).empty())
    return fail("expects exactly one output");
  if (np.attribute_size() != 1)
    return fail("expects exactly one value attribute");
  const onnx::AttributeProto &a = np.attribute(0);
  using AP = onnx::AttributeProto;
  struct Form {
    const char *name;
    AP::AttributeType type;
  };
  static const Form forms[] = {{"value", AP::TENSOR},
                               {"value_float", AP::FLOAT},
                               {"value_floats", AP::FLOATS},
                               {"value_int", AP::INT},
                               {"value_ints", AP::INTS}};
  const Form *form = nullptr;
  for (const Form &f : forms)
    if (a.name() == f.name)
      form = &f;
  if (!form)
    return fail("attribute '" + a.name() + "' is not supported");
  if (a.type() != form->type)
    return fail("attribute '" + a.name() + "' has the wrong kind");

  Tensor t;
  switch (form->type) {
  case AP::TENSOR: {
    auto bytes = declaredTensorBytes(a.t());
    if (!bytes)
      return fail(llvm::toString(bytes.takeError()));
    if (auto err = graph_->checkNewConstant("its value", *bytes))
      return fail(llvm::toString(std::move(err)));
    auto converted = tensorFromProto(a.t(), &external_);
    if (!converted)
      return fail(llvm::toString(converted.takeError()));
    t = std::move(*converted);
    break;
  }
  case AP::FLOAT: {
    float f = a.f();
    t = Tensor::fromValues<float>(DType::F32, {}, f);
    break;
  }
  case AP::FLOATS: {
    llvm::SmallVector<float, 8> v(a.floats().begin(), a.floats().end());
    t = Tensor::fromValues<float>(DType::F32, {(int64_t)v.size()}, v);
    break;
  }
  case AP::INT: {
    int64_t i = a.i();
    t = Tensor::fromValues<int64_t>(DType::I64, {}, i);
    break;
  }
  default: {
    llvm::SmallVector<int64_t, 8> v(a.ints().begin(), a.ints().end());
    t = Tensor::fromValues<int64_t>(DType::I64, {(int64_t)v.size()}, v);
    break;
  }
  }
  return define(np.output(0), graph_->addConstant(np.output(0), std::move(t)));
}

llvm::Error OnnxModelImporter::importNode(NodeEmitter &emitter,
                                          const onnx::NodeProto &np, int index) {
  std::string name = nodeDisplayName(np, index);
  if (np.op_type() == "Constant")
    return importConstantNode(np, name);
  if (np.domain() == kOnnxTrainingDomain)
    return importGradientNode(emitter, np, name);
  if (np.op_type() == "If")
    return importIf(emitter, np, name);
  if (np.op_type() == "Loop")
    return importLoop(emitter, np, name);
  if (np.op_type() == "NonZero")
    return importNonZero(np, name);
  bool sequenceOp = isImportTimeSequenceOp(np.op_type());
  PendingNode pending;
  pending.name = name;
  // checkOpsSupported vetted the op; sequence ops have no OpDef.
  pending.kind =
      sequenceOp ? OpKind::Identity : lookupOnnxOp(np.op_type())->kind;
  pending.opType = np.op_type();
  llvm::SmallVector<std::string, 2> sequenceInputs;
  for (const std::string &in : np.input()) {
    sequenceInputs.emplace_back();
    if (in.empty()) {
      pending.inputs.push_back(nullptr);
      continue;
    }
    if (sequences_.count(in)) {
      if (!sequenceOp)
        return pending.error("input '" + in +
                             "' is a sequence; only sequence ops take one");
      sequenceInputs.back() = in;
      pending.inputs.push_back(nullptr);
      continue;
    }
    auto it = values_.find(in);
    if (it == values_.end())
      return pending.error("input '" + in +
                           "' is not a graph input, an initializer or an "
                           "output of an earlier node");
    pending.inputs.push_back(it->second);
  }
  while (!pending.inputs.empty() && !pending.inputs.back())
    pending.inputs.pop_back();

  bool recurrent = isRecurrentOp(pending.kind);
  for (const onnx::AttributeProto &a : np.attribute()) {
    if (llvm::StringRef(a.name()).starts_with("kiln."))
      return pending.error("attribute '" + a.name() +
                           "' is reserved for kiln's own use");
    if (recurrent && isRecurrentActivationAttr(a.name()))
      continue;
    auto attr = convertAttr(a, external_);
    if (!attr)
      return pending.error(llvm::toString(attr.takeError()));
    if (!pending.attrs.emplace(a.name(), std::move(*attr)).second)
      return pending.error("attribute '" + a.name() + "' appears twice");
  }
  if (recurrent)
    if (auto err = recurrentActivations(np, pending))
      return err;
  pending.outputs.assign(np.output().begin(), np.output().end());
  if (sequenceOp)
    return importSequenceOp(emitter, pending, sequenceInputs,
                            {values_, sequences_});

  auto results = emitComputingF64InF32(emitter, pending);
  if (!results)
    return results.takeError();
  for (int i = 0; i < np.output_size(); ++i) {
    const std::string &out = np.output(i);
    if (out.empty())
      continue;
    if (static_cast<size_t>(i) >= results->size())
      return pending.error(
          llvm::formatv("output {0} ('{1}') is not supported", i, out));
    if (auto err = define(out, (*results)[i]))
      return err;
  }
  return llvm::Error::success();
}

/// Gradient names its tensors in string attributes: y, and xs (zs, the
/// inputs held fixed, need nothing: only paths from the xs are followed).
llvm::Error OnnxModelImporter::importGradientNode(NodeEmitter &emitter,
                                                  const onnx::NodeProto &np,
                                                  llvm::StringRef name) {
  PendingNode pending;
  pending.name = name.str();
  pending.kind = OpKind::Identity;
  pending.opType = np.op_type();
  pending.outputs.assign(np.output().begin(), np.output().end());
  auto tensor = [&](const std::string &valueName) -> llvm::Expected<Value *> {
    auto it = values_.find(valueName);
    if (it == values_.end())
      return pending.error("'" + valueName +
                           "' is not a tensor computed before the node");
    return it->second;
  };
  Value *y = nullptr;
  llvm::SmallVector<Value *, 4> xs;
  for (const onnx::AttributeProto &a : np.attribute()) {
    if (a.name() == "y") {
      auto v = tensor(a.s());
      if (!v)
        return v.takeError();
      y = *v;
    } else if (a.name() == "xs") {
      for (const std::string &x : a.strings()) {
        auto v = tensor(x);
        if (!v)
          return v.takeError();
        xs.push_back(*v);
      }
    }
  }
  if (!y || xs.empty())
    return pending.error("needs the attributes y and xs");
  if (xs.size() != static_cast<size_t>(np.output_size()))
    return pending.error("needs one output per entry of xs");
  auto results = emitGradient(emitter, pending, y, xs);
  if (!results)
    return results.takeError();
  for (size_t i = 0; i < xs.size(); ++i)
    if (!np.output(i).empty())
      if (auto err = define(np.output(i), (*results)[i]))
        return err;
  return llvm::Error::success();
}

llvm::Error OnnxModelImporter::importOutputs() {
  llvm::StringSet<> seen;
  for (const onnx::ValueInfoProto &vi : model_.graph().output()) {
    auto it = values_.find(vi.name());
    if (sequences_.count(vi.name()))
      return makeError("graph output '" + vi.name() +
                       "' is a sequence; kiln compiles tensors only");
    if (it == values_.end())
      return makeError("graph output '" + vi.name() +
                       "' is not computed by the graph");
    if (!seen.insert(vi.name()).second)
      return makeError("graph output '" + vi.name() + "' is listed twice");
    if (auto err = checkDeclaredType(vi, it->second))
      return err;
    graph_->addOutput(vi.name(), it->second);
  }
  return llvm::Error::success();
}

/// A declared output type that disagrees with the type rules means the
/// importer or an op misread the model; symbolic and unknown parts are not
/// compared.
llvm::Error OnnxModelImporter::checkDeclaredType(const onnx::ValueInfoProto &vi,
                                                 const Value *v) const {
  if (!vi.has_type())
    return llvm::Error::success();
  const TensorType &actual = v->getType();
  auto mismatch = [&](llvm::StringRef declared) {
    return makeError("graph output '" + vi.name() + "': the model declares " +
                     declared + " but the graph computes " + actual.str());
  };
  if (!vi.type().has_tensor_type())
    return mismatch("a non-tensor type");
  const onnx::TypeProto::Tensor &tt = vi.type().tensor_type();
  if (tt.elem_type() != onnx::TensorProto::UNDEFINED &&
      dtypeFromOnnx(tt.elem_type()) != actual.dtype)
    return mismatch(declaredTypeStr(tt));
  if (!tt.has_shape())
    return llvm::Error::success();
  if (static_cast<size_t>(tt.shape().dim_size()) != actual.rank())
    return mismatch(declaredTypeStr(tt));
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    if (d.has_dim_value() && d.dim_value() != actual.shape[i])
      return mismatch(declaredTypeStr(tt));
  }
  return llvm::Error::success();
}

namespace {

llvm::Expected<std::unique_ptr<Graph>>
importBytes(llvm::StringRef bytes, llvm::StringRef graphName,
            llvm::StringRef source, const OnnxImportOptions &opts,
            std::optional<llvm::StringRef> modelDir) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return makeError(source + llvm::formatv(": not a valid ONNX model ({0} bytes; a "
                                            "protobuf holds 2 GB at most)",
                                            bytes.size()));
  // Each level of subgraphs is three messages deep (graph, node,
  // attribute); the parser's own limit (100) would otherwise refuse deep
  // nesting with no reason given, or cap what --max-subgraph-depth allows.
  int recursionLimit = static_cast<int>(std::min<uint64_t>(
      std::max<uint64_t>(100, 3 * opts.limits.maxSubgraphDepth + 16), 10000));
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()), static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(recursionLimit);
  // ParseFromArray's whole-input check: bytes after an end-group tag are
  // not a model.
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return makeError(source + llvm::formatv(": not a valid ONNX model (failed to parse "
                                            "protobuf: malformed, or messages nested "
                                            "more than {0} deep)",
                                            recursionLimit));
  if (!model.has_ir_version() || !model.has_graph())
    return makeError(source + ": not a valid ONNX model (no " +
                     (model.has_ir_version() ? "graph" : "ir_version") + ")");
  return OnnxModelImporter(model, graphName, opts, modelDir).run();
}

} // namespace

llvm::Expected<std::unique_ptr<Graph>>
importOnnxFile(llvm::StringRef path, const OnnxImportOptions &opts) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return makeError(path + ": cannot read file: " + buf.getError().message());
  return importBytes((*buf)->getBuffer(), llvm::sys::path::stem(path), path,
                     opts, llvm::sys::path::parent_path(path));
}

llvm::Expected<std::unique_ptr<Graph>>
importOnnxBuffer(llvm::StringRef bytes, llvm::StringRef modelName,
                 const OnnxImportOptions &opts,
                 std::optional<llvm::StringRef> modelDir) {
  return importBytes(bytes, modelName, modelName, opts, modelDir);
}

bool isKnownOnnxOp(llvm::StringRef opType) {
  return opType == "Constant" || isImportTimeSequenceOp(opType) ||
         lookupOnnxOp(opType);
}

} // namespace kiln
