//===- LocalFunctions.cpp - ONNX model-local functions, inlined -----------===//

#include "compiler/frontend/onnx/LocalFunctions.h"
#include "compiler/frontend/onnx/NodeNames.h"
#include "compiler/graph/Graph.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <google/protobuf/unknown_field_set.h>

#include <map>
#include <optional>
#include <tuple>

namespace kiln {

namespace {

// Fields of IR versions 9 and 10 that Debian's ONNX (1.12) protobufs predate;
// the parser keeps them as unknown fields.
constexpr int kFunctionAttributeDefaults = 11; // FunctionProto.attribute_proto
constexpr int kFunctionOverload = 13;          // FunctionProto.overload
constexpr int kNodeOverload = 8;               // NodeProto.overload

/// The length-delimited unknown fields numbered `number` of `m`.
llvm::SmallVector<std::string, 2> unknownFields(const google::protobuf::Message &m,
                                                int number) {
  llvm::SmallVector<std::string, 2> values;
  const google::protobuf::UnknownFieldSet &fields = m.GetReflection()->GetUnknownFields(m);
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField &f = fields.field(i);
    if (f.number() == number && f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      values.push_back(f.length_delimited());
  }
  return values;
}

std::string overloadOf(const google::protobuf::Message &m, int number) {
  auto values = unknownFields(m, number);
  return values.empty() ? std::string() : values.back();
}

/// "domain.name" (and ":overload"), as errors name a function.
std::string functionName(llvm::StringRef domain, llvm::StringRef name,
                         llvm::StringRef overload) {
  std::string s = domain.empty() ? name.str() : (domain + "." + name).str();
  if (!overload.empty())
    s += ":" + overload.str();
  return s;
}

struct Function {
  const onnx::FunctionProto *proto;
  std::string name;
  /// The attributes the function declares, with their defaults (IR 9) where
  /// it gives one.
  llvm::StringMap<std::optional<onnx::AttributeProto>> attributes;
};

using FunctionKey = std::tuple<std::string, std::string, std::string>;

class Inliner {
public:
  Inliner(onnx::ModelProto &model, int64_t opset, const ResourceLimits &limits)
      : model_(model), opset_(opset), limits_(limits) {}

  llvm::Error run();

private:
  llvm::Error collectFunctions();
  /// Appends `n` (named `name`) to out_, or the nodes of the function it
  /// calls, which are `depth` calls deep.
  llvm::Error expand(const onnx::NodeProto &n, const std::string &name, uint64_t depth);
  llvm::Error inlineCall(const onnx::NodeProto &call, const Function &f,
                         const std::string &name, uint64_t depth);
  /// `base`, or `base` with a number appended, unused by any value so far.
  std::string freshName(const std::string &base);

  onnx::ModelProto &model_;
  int64_t opset_;
  const ResourceLimits &limits_;
  std::map<FunctionKey, Function> functions_;
  llvm::StringSet<> taken_;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> out_;
};

llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error Inliner::collectFunctions() {
  for (const onnx::FunctionProto &fp : model_.functions()) {
    if (fp.name().empty())
      return makeError("a model-local function has no name");
    std::string overload = overloadOf(fp, kFunctionOverload);
    Function f{&fp, functionName(fp.domain(), fp.name(), overload), {}};
    for (const std::string &a : fp.attribute())
      f.attributes[a] = std::nullopt;
    for (const std::string &bytes : unknownFields(fp, kFunctionAttributeDefaults)) {
      onnx::AttributeProto a;
      if (!a.ParseFromString(bytes) || a.name().empty())
        return makeError("function '" + f.name + "': an attribute default is malformed");
      f.attributes[a.name()] = std::move(a);
    }
    FunctionKey key{fp.domain(), fp.name(), overload};
    if (functions_.count(key))
      return makeError("function '" + f.name + "' is defined twice");
    functions_.emplace(key, std::move(f));
  }
  return llvm::Error::success();
}

std::string Inliner::freshName(const std::string &base) {
  std::string name = base;
  for (int k = 1; !taken_.insert(name).second; ++k)
    name = base + "_" + std::to_string(k);
  return name;
}

llvm::Error Inliner::expand(const onnx::NodeProto &n, const std::string &name,
                            uint64_t depth) {
  auto it = functions_.find({n.domain(), n.op_type(), overloadOf(n, kNodeOverload)});
  if (it != functions_.end())
    return inlineCall(n, it->second, name, depth);
  if (uint64_t(out_.size()) >= limits_.maxNodes)
    return nodeError(name, n.op_type(),
                     llvm::formatv("inlining the model's functions makes more than {0} "
                                   "nodes (--max-nodes)",
                                   limits_.maxNodes));
  onnx::NodeProto *copy = out_.Add();
  *copy = n;
  copy->set_name(name);
  return llvm::Error::success();
}

llvm::Error Inliner::inlineCall(const onnx::NodeProto &call, const Function &f,
                                const std::string &name, uint64_t depth) {
  const onnx::FunctionProto &fp = *f.proto;
  auto fail = [&](const llvm::Twine &msg) {
    return nodeError(name, call.op_type(), "calling function '" + f.name + "': " + msg);
  };
  if (depth >= limits_.maxSubgraphDepth)
    return fail(llvm::formatv("calls nest deeper than the limit of {0} levels "
                              "(--max-subgraph-depth); a function may not call itself",
                              limits_.maxSubgraphDepth));
  for (const onnx::OperatorSetIdProto &id : fp.opset_import())
    if (isDefaultDomain(id.domain()) && id.version() != opset_)
      return fail(llvm::formatv("the function imports ONNX opset {0} and the model {1}; "
                                "kiln imports every node at the model's opset",
                                id.version(), opset_));
  if (call.input_size() > fp.input_size() || call.output_size() > fp.output_size())
    return fail(llvm::formatv("the call has {0} inputs and {1} outputs, the function {2} "
                              "and {3}",
                              call.input_size(), call.output_size(), fp.input_size(),
                              fp.output_size()));
  llvm::StringMap<const onnx::AttributeProto *> given;
  for (const onnx::AttributeProto &a : call.attribute()) {
    if (!f.attributes.count(a.name()))
      return fail("the function has no attribute '" + a.name() + "'");
    given[a.name()] = &a;
  }

  // Formal inputs and outputs are the call's values; the function's own
  // values get names of their own under the call's.
  llvm::StringMap<std::string> rename;
  for (int i = 0; i < fp.input_size(); ++i)
    rename[fp.input(i)] = i < call.input_size() ? call.input(i) : std::string();
  for (int i = 0; i < fp.output_size(); ++i)
    rename[fp.output(i)] = i < call.output_size() && !call.output(i).empty()
                               ? call.output(i)
                               : freshName(name + "/" + fp.output(i));
  auto valueName = [&](const std::string &v) -> std::string {
    if (v.empty())
      return v;
    auto [it, inserted] = rename.try_emplace(v);
    if (inserted)
      it->second = freshName(name + "/" + v);
    return it->second;
  };

  for (int k = 0; k < fp.node_size(); ++k) {
    const onnx::NodeProto &body = fp.node(k);
    onnx::NodeProto n = body;
    n.clear_input();
    n.clear_output();
    n.clear_attribute();
    for (const std::string &v : body.input())
      n.add_input(valueName(v));
    for (const std::string &v : body.output())
      n.add_output(valueName(v));
    for (const onnx::AttributeProto &a : body.attribute()) {
      if (a.ref_attr_name().empty()) {
        *n.add_attribute() = a;
        continue;
      }
      const onnx::AttributeProto *value = nullptr;
      if (auto g = given.find(a.ref_attr_name()); g != given.end())
        value = g->second;
      else if (auto d = f.attributes.find(a.ref_attr_name());
               d != f.attributes.end() && d->second)
        value = &*d->second;
      else if (d == f.attributes.end())
        return fail("node '" + nodeDisplayName(body, k) + "' refers to attribute '" +
                    a.ref_attr_name() + "', which the function does not declare");
      if (!value)
        continue; // Neither given nor defaulted: the op's own default holds.
      onnx::AttributeProto *copy = n.add_attribute();
      *copy = *value;
      copy->set_name(a.name());
    }
    if (auto err = expand(n, name + "/" + nodeDisplayName(body, k), depth + 1))
      return err;
  }
  return llvm::Error::success();
}

llvm::Error Inliner::run() {
  if (auto err = collectFunctions())
    return err;
  onnx::GraphProto &g = *model_.mutable_graph();
  for (const onnx::ValueInfoProto &v : g.input())
    taken_.insert(v.name());
  for (const onnx::TensorProto &t : g.initializer())
    taken_.insert(t.name());
  for (const onnx::NodeProto &n : g.node())
    for (const std::string &v : n.output())
      taken_.insert(v);
  for (int i = 0; i < g.node_size(); ++i)
    if (auto err = expand(g.node(i), nodeDisplayName(g.node(i), i), 0))
      return err;
  g.mutable_node()->Swap(&out_);
  return llvm::Error::success();
}

} // namespace

llvm::Error inlineLocalFunctions(onnx::ModelProto &model, int64_t defaultOpset,
                                 const ResourceLimits &limits) {
  if (model.functions_size() == 0)
    return llvm::Error::success();
  return Inliner(model, defaultOpset, limits).run();
}

} // namespace kiln
