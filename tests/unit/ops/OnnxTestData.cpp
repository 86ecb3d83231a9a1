#include "tests/unit/ops/OnnxTestData.h"

#include "compiler/ops/OpHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>

namespace kiln {
namespace testing {
namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

template <typename Proto>
llvm::Expected<Proto> readProto(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  Proto p;
  if (!f || !p.ParseFromIstream(&f))
    return fail("cannot read " + path);
  return p;
}

/// ONNX inputs that kiln holds as attributes, by op and input position.
struct InputAttr {
  const char *op;
  int input;
  const char *attr;
  AttrKind kind;
};
const InputAttr kInputAttrs[] = {
    {"Clip", 1, "min", AttrKind::Float},
    {"Clip", 2, "max", AttrKind::Float},
    {"Pad", 1, "pads", AttrKind::Ints},
    {"Pad", 2, "value", AttrKind::Float},
    {"Reshape", 1, "shape", AttrKind::Ints},
    {"Squeeze", 1, "axes", AttrKind::Ints},
    {"Unsqueeze", 1, "axes", AttrKind::Ints},
};

/// Ops whose older opsets meant something else with the same attributes:
/// kiln's semantics start at this version.
const std::map<std::string, int64_t> kMinOpset = {{"Softmax", 13}};

const InputAttr *inputAttrFor(llvm::StringRef op, int input) {
  for (const InputAttr &ia : kInputAttrs)
    if (op == ia.op && input == ia.input)
      return &ia;
  return nullptr;
}

/// An ONNX attribute converted by kind alone, or nullopt for kinds kiln has
/// no Attr for (graphs, string lists, ...).
llvm::Expected<std::optional<Attr>> convertAttr(const onnx::AttributeProto &a) {
  switch (a.type()) {
  case onnx::AttributeProto::FLOAT:
    return Attr::ofFloat(a.f());
  case onnx::AttributeProto::INT:
    return Attr::ofInt(a.i());
  case onnx::AttributeProto::STRING:
    return Attr::ofString(a.s());
  case onnx::AttributeProto::INTS:
    return Attr::ofInts(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
  case onnx::AttributeProto::FLOATS:
    return Attr::ofFloats(
        std::vector<float>(a.floats().begin(), a.floats().end()));
  case onnx::AttributeProto::TENSOR: {
    auto t = tensorFromProto(a.t());
    if (!t)
      return t.takeError();
    return Attr::ofTensor(std::move(*t));
  }
  default:
    return std::nullopt;
  }
}

/// Builds one case; every "skip" returns false after recording the reason.
class CaseBuilder {
public:
  explicit CaseBuilder(std::string dir) : dir_(std::move(dir)) {}

  llvm::Expected<OnnxCase> build() {
    auto model = readProto<onnx::ModelProto>(dir_ + "/model.onnx");
    if (!model)
      return model.takeError();
    model_ = std::move(*model);
    c_.graph = std::make_unique<Graph>(model_.graph().name());
    auto ok = buildAll();
    if (!ok)
      return ok.takeError();
    if (!*ok)
      c_.graph.reset();
    return std::move(c_);
  }

private:
  bool skip(const llvm::Twine &why) {
    c_.skipReason = why.str();
    return false;
  }

  llvm::Expected<bool> buildAll() {
    auto ok = loadData();
    if (!ok || !*ok)
      return ok;
    const onnx::GraphProto &g = model_.graph();
    for (int i = 0; i < g.node_size(); ++i) {
      ok = addNode(g.node(i), i);
      if (!ok || !*ok)
        return ok;
    }
    for (const onnx::ValueInfoProto &out : g.output()) {
      Value *v = valueFor(out.name());
      if (!v)
        return fail("graph output '" + out.name() + "' is never defined");
      c_.graph->addOutput(out.name(), v);
    }
    return true;
  }

  /// Initializers, the test inputs and the expected outputs.
  llvm::Expected<bool> loadData() {
    const onnx::GraphProto &g = model_.graph();
    for (const onnx::TensorProto &init : g.initializer()) {
      auto t = tensorFromProto(init);
      if (!t)
        return skip("initializer '" + init.name() +
                    "': " + llvm::toString(t.takeError()));
      known_.emplace(init.name(), std::move(*t));
      constants_.insert(init.name());
    }
    std::string dataDir = dir_ + "/test_data_set_0/";
    int next = 0;
    for (const onnx::ValueInfoProto &in : g.input()) {
      if (constants_.count(in.name()))
        continue;
      if (!in.type().has_tensor_type())
        return skip("input '" + in.name() + "' is not a tensor");
      auto proto = readProto<onnx::TensorProto>(
          llvm::formatv("{0}input_{1}.pb", dataDir, next++).str());
      if (!proto)
        return proto.takeError();
      auto t = tensorFromProto(*proto);
      if (!t)
        return skip("input '" + in.name() +
                    "': " + llvm::toString(t.takeError()));
      known_.emplace(in.name(), std::move(*t));
    }
    for (int i = 0; i < g.output_size(); ++i) {
      if (!g.output(i).type().has_tensor_type())
        return skip("output '" + g.output(i).name() + "' is not a tensor");
      auto proto = readProto<onnx::TensorProto>(
          llvm::formatv("{0}output_{1}.pb", dataDir, i).str());
      if (!proto)
        return proto.takeError();
      auto t = tensorFromProto(*proto);
      if (!t)
        return skip("output '" + g.output(i).name() +
                    "': " + llvm::toString(t.takeError()));
      c_.expected.push_back(std::move(*t));
    }
    return true;
  }

  int64_t opsetVersion() const {
    for (const onnx::OperatorSetIdProto &o : model_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx")
        return o.version();
    return 0;
  }

  /// The kiln value for an ONNX name: a node result, or a constant or graph
  /// input created on first use.
  Value *valueFor(const std::string &name) {
    if (auto it = values_.find(name); it != values_.end())
      return it->second;
    auto data = known_.find(name);
    if (data == known_.end())
      return nullptr;
    Value *v;
    if (constants_.count(name)) {
      v = c_.graph->addConstant(name, data->second);
    } else {
      v = c_.graph->addInput(name, data->second.getType());
      c_.inputs.push_back(data->second);
    }
    values_[name] = v;
    return v;
  }

  llvm::Expected<bool> addNode(const onnx::NodeProto &np, int index) {
    const std::string &op = np.op_type();
    if (!np.domain().empty() && np.domain() != "ai.onnx")
      return skip("op " + op + " is in domain " + np.domain());
    if (op == "Constant") {
      if (np.attribute_size() != 1 || np.attribute(0).name() != "value")
        return skip("Constant without a 'value' tensor");
      auto t = tensorFromProto(np.attribute(0).t());
      if (!t)
        return skip("Constant: " + llvm::toString(t.takeError()));
      known_.emplace(np.output(0), std::move(*t));
      constants_.insert(np.output(0));
      c_.opTypes.push_back(op);
      return true;
    }
    c_.opTypes.push_back(op);
    const OpDef *def = lookupOpDef(op);
    if (!def)
      return skip("op " + op + " is not a kiln op");
    if (auto it = kMinOpset.find(op);
        it != kMinOpset.end() && opsetVersion() < it->second)
      return skip(llvm::formatv("{0}-{1} predates kiln's semantics ({0}-{2})",
                                op, opsetVersion(), it->second));

    AttrMap attrs;
    for (const onnx::AttributeProto &a : np.attribute()) {
      const AttrSpec *spec = def->findAttr(a.name());
      if (!spec)
        return skip("attribute '" + a.name() + "' of " + op +
                    " is not in kiln's form (older opset)");
      auto attr = convertAttr(a);
      if (!attr)
        return skip("attribute '" + a.name() +
                    "': " + llvm::toString(attr.takeError()));
      if (!*attr || (*attr)->getKind() != spec->kind)
        return skip("attribute '" + a.name() + "' of " + op +
                    " does not have kiln's kind");
      attrs[a.name()] = **attr;
    }

    llvm::SmallVector<Value *, 4> inputs;
    for (int i = 0; i < np.input_size(); ++i) {
      const std::string &name = np.input(i);
      if (const InputAttr *ia = inputAttrFor(op, i)) {
        if (name.empty())
          continue;
        auto data = known_.find(name);
        if (data == known_.end())
          return skip(llvm::formatv("input {0} of {1} is not constant", i, op));
        std::optional<Attr> attr = tensorToAttr(data->second, ia->kind);
        if (!attr)
          return skip(llvm::formatv("input {0} of {1} does not fit attribute "
                                    "'{2}'",
                                    i, op, ia->attr));
        attrs[ia->attr] = *attr;
        continue;
      }
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      Value *v = valueFor(name);
      if (!v)
        return fail("input '" + name + "' of " + op + " is never defined");
      inputs.push_back(v);
    }
    while (!inputs.empty() && !inputs.back())
      inputs.pop_back();
    if (inputs.size() > def->maxInputs)
      return skip(llvm::formatv("{0} has {1} inputs, kiln's form at most {2}",
                                op, inputs.size(), def->maxInputs));

    std::string name = np.name().empty()
                           ? llvm::formatv("{0}_{1}", op, index).str()
                           : np.name();
    auto node = c_.graph->addNode(def->kind, name, inputs, std::move(attrs));
    if (!node)
      return node.takeError();
    for (int j = 0; j < np.output_size(); ++j) {
      if (np.output(j).empty())
        continue;
      if (j >= int((*node)->getNumOutputs()))
        return skip(llvm::formatv("output {0} of {1} is not produced by kiln",
                                  j, op));
      values_[np.output(j)] = (*node)->getOutput(j);
    }
    return true;
  }

  static std::optional<Attr> tensorToAttr(const Tensor &t, AttrKind kind) {
    if (t.getDType() == DType::F16)
      return std::nullopt;
    if (kind == AttrKind::Float) {
      if (t.numElements() != 1)
        return std::nullopt;
      return Attr::ofFloat(static_cast<float>(t.getAsDouble(0)));
    }
    std::vector<int64_t> ints;
    for (int64_t i = 0; i < t.numElements(); ++i)
      ints.push_back(t.getAsInt(i));
    return Attr::ofInts(ints);
  }

  std::string dir_;
  onnx::ModelProto model_;
  OnnxCase c_;
  /// Data known before running: initializers, Constant results, test inputs.
  std::map<std::string, Tensor> known_;
  std::set<std::string> constants_;
  std::map<std::string, Value *> values_;
};

} // namespace

llvm::Expected<Tensor> tensorFromProto(const onnx::TensorProto &p) {
  std::optional<DType> dtype = dtypeFromOnnx(p.data_type());
  if (!dtype)
    return fail(llvm::formatv("dtype {0} has no kiln DType",
                              onnxDTypeName(p.data_type())));
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    return fail("external data is not supported");
  Tensor t(TensorType(*dtype, Shape(p.dims().begin(), p.dims().end())));
  int64_t n = t.numElements();
  if (!p.raw_data().empty()) {
    if (p.raw_data().size() != t.sizeInBytes())
      return fail(llvm::formatv("raw_data has {0} bytes, {1} needs {2}",
                                p.raw_data().size(), t.getType().str(),
                                t.sizeInBytes()));
    std::memcpy(t.rawData(), p.raw_data().data(), t.sizeInBytes());
    return t;
  }
  auto expectCount = [&](int count) -> llvm::Error {
    if (count == n)
      return llvm::Error::success();
    return fail(llvm::formatv("tensor {0} has {1} values", t.getType().str(),
                              count));
  };
  switch (*dtype) {
  case DType::F32:
    if (llvm::Error e = expectCount(p.float_data_size()))
      return e;
    std::copy(p.float_data().begin(), p.float_data().end(), t.data<float>());
    return t;
  case DType::I64:
    if (llvm::Error e = expectCount(p.int64_data_size()))
      return e;
    std::copy(p.int64_data().begin(), p.int64_data().end(), t.data<int64_t>());
    return t;
  case DType::F16:
    // float16 values travel as their bit patterns in int32_data.
    if (llvm::Error e = expectCount(p.int32_data_size()))
      return e;
    for (int64_t i = 0; i < n; ++i)
      t.data<uint16_t>()[i] = static_cast<uint16_t>(p.int32_data(i));
    return t;
  default:
    if (llvm::Error e = expectCount(p.int32_data_size()))
      return e;
    for (int64_t i = 0; i < n; ++i)
      t.setFromDouble(i, p.int32_data(i));
    return t;
  }
}

llvm::Expected<OnnxCase> loadOnnxCase(const std::string &dir) {
  return CaseBuilder(dir).build();
}

std::vector<std::string> listOnnxCases(const std::string &suite) {
  std::vector<std::string> dirs;
  std::string root = std::string(kOnnxTestDataRoot) + "/" + suite;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::sys::fs::exists(it->path() + "/model.onnx"))
      dirs.push_back(it->path());
  llvm::sort(dirs);
  return dirs;
}

} // namespace testing
} // namespace kiln
