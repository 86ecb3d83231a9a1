//===- ControlFlow.cpp - If and Loop, resolved while importing ------------===//
//
// kiln compiles a graph of static shapes with no control flow at run time.
// An If or a Loop whose decisions fold at import (from constants and static
// shapes) is the straight-line code it runs: an If is the branch its
// condition takes; a Loop is its body, unrolled once per iteration, its
// trip count and condition known at each step. PyTorch writes such Ifs for
// its checks of a tensor's rank (LocalResponseNorm) and such Loops for
// nn.EmbeddingBag over bags of one size.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"
#include "compiler/frontend/onnx/OnnxModelImporter.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln {
namespace {

/// The error for control-flow input `index` (`what`) of node `name` (op
/// `op`), computed at run time where kiln needs it constant; the
/// conformance runner and --const-input can fix a graph input.
llvm::Error nonConstantError(llvm::StringRef name, llvm::StringRef op, unsigned index,
                             llvm::StringRef what, const Value &v) {
  return llvm::make_error<NonConstantInputError>(
      llvm::toString(nodeError(
          name, op,
          llvm::formatv("input {0} ({1}) must be a constant (control flow at run time is not "
                        "supported: kiln compiles the path the model takes); '{2}' is {3}",
                        index, what, v.getName(),
                        v.isInput() ? "a graph input: give it a value with --const-input "
                                      "NAME=FILE.npy"
                                    : "computed at run time"))),
      v.getName().str());
}

/// The graph attribute `attr` of `np`, or nullptr.
const onnx::GraphProto *graphAttr(const onnx::NodeProto &np, llvm::StringRef attr) {
  for (const onnx::AttributeProto &a : np.attribute())
    if (a.name() == attr && a.has_g())
      return &a.g();
  return nullptr;
}

/// Every value name `g` defines: its inputs, initializers and node outputs,
/// and those of the graphs nested in its nodes.
void collectDefined(const onnx::GraphProto &g, llvm::StringSet<> &names) {
  for (const onnx::ValueInfoProto &vi : g.input())
    names.insert(vi.name());
  for (const onnx::TensorProto &t : g.initializer())
    names.insert(t.name());
  for (const onnx::NodeProto &n : g.node()) {
    for (const std::string &out : n.output())
      if (!out.empty())
        names.insert(out);
    for (const onnx::AttributeProto &a : n.attribute()) {
      if (a.has_g())
        collectDefined(a.g(), names);
      for (const onnx::GraphProto &sub : a.graphs())
        collectDefined(sub, names);
    }
  }
}

/// Renames, in `g` and the graphs nested in it, every value in `local` to
/// `prefix` + its name, so that one iteration's values are apart from
/// another's; the outer scope's names stay. `g`'s own nodes take the prefix
/// too when `renameNodes` (a nested Loop's take its own when it unrolls).
void prefixNames(onnx::GraphProto &g, const llvm::StringSet<> &local, const std::string &prefix,
                 bool renameNodes = true) {
  auto rename = [&](std::string *name) {
    if (!name->empty() && local.count(*name))
      *name = prefix + *name;
  };
  for (onnx::ValueInfoProto &vi : *g.mutable_input())
    rename(vi.mutable_name());
  for (onnx::ValueInfoProto &vi : *g.mutable_output())
    rename(vi.mutable_name());
  for (onnx::TensorProto &t : *g.mutable_initializer())
    rename(t.mutable_name());
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto &n = *g.mutable_node(i);
    if (renameNodes)
      n.set_name(prefix + (n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name()));
    for (std::string &in : *n.mutable_input())
      rename(&in);
    for (std::string &out : *n.mutable_output())
      rename(&out);
    for (onnx::AttributeProto &a : *n.mutable_attribute()) {
      if (a.has_g())
        prefixNames(*a.mutable_g(), local, prefix, false);
      for (onnx::GraphProto &sub : *a.mutable_graphs())
        prefixNames(sub, local, prefix, false);
    }
  }
}

} // namespace

llvm::Expected<Value *> OnnxModelImporter::inputValue(llvm::StringRef node, llvm::StringRef op,
                                                      const std::string &value) const {
  auto it = values_.find(value);
  if (it == values_.end())
    return nodeError(node, op,
                     "input '" + value +
                         "' is not a graph input, an initializer or an output of an earlier node");
  return it->second;
}

llvm::Error OnnxModelImporter::importSubgraph(NodeEmitter &emitter, const onnx::GraphProto &g) {
  if (auto err = checkOpsSupported(g))
    return err;
  if (auto err = importInitializers(g))
    return err;
  for (int i = 0; i < g.node_size(); ++i)
    if (auto err = importNode(emitter, g.node(i), i))
      return err;
  return llvm::Error::success();
}

/// The branch an If's condition takes is imported in its place, and its
/// outputs become the If's. The other branch is never imported, so it may
/// hold what kiln does not support.
llvm::Error OnnxModelImporter::importIf(NodeEmitter &emitter, const onnx::NodeProto &np,
                                        llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &msg) { return nodeError(name, "If", msg); };
  if (np.input_size() != 1)
    return fail("needs exactly one input, the condition");
  auto cond = inputValue(name, "If", np.input(0));
  if (!cond)
    return cond.takeError();
  if (!(*cond)->isConstant())
    return nonConstantError(name, "If", 0, "the condition", **cond);
  const Tensor &c = (*cond)->getConstant();
  if (c.numElements() != 1)
    return fail(llvm::formatv("the condition has {0} elements; it must have one",
                              c.numElements()));
  llvm::StringRef taken = c.getAsInt(0) ? "then_branch" : "else_branch";
  const onnx::GraphProto *branch = graphAttr(np, taken);
  if (!branch)
    return fail("has no graph attribute '" + taken + "'");
  if (branch->output_size() != np.output_size())
    return fail(llvm::formatv("its {0} has {1} outputs; the If has {2}", taken,
                              branch->output_size(), np.output_size()));
  if (auto err = importSubgraph(emitter, *branch))
    return err;
  for (int i = 0; i < np.output_size(); ++i) {
    const std::string &from = branch->output(i).name(), &out = np.output(i);
    if (out.empty())
      continue;
    if (auto seq = sequences_.find(from); seq != sequences_.end()) {
      if (values_.count(out) || !sequences_.try_emplace(out, seq->second).second)
        return fail("value '" + out + "' is defined more than once");
      continue;
    }
    auto v = values_.find(from);
    if (v == values_.end())
      return fail("output '" + from + "' of its " + taken + " is not computed in it or before it");
    if (auto err = define(out, v->second))
      return err;
  }
  return llvm::Error::success();
}

/// A Loop runs its body while the trip count M (when given) is not reached
/// and the condition (when given) holds: each iteration is the body
/// imported again, its values renamed apart, with the iteration number a
/// constant and the loop-carried values of the one before. Each decision
/// must fold at import, and the iterations of all the model's Loops are at
/// most --max-unrolled-steps.
/// The scan outputs are the iterations' values stacked on a new first axis.
llvm::Error OnnxModelImporter::importLoop(NodeEmitter &emitter, const onnx::NodeProto &np,
                                          llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &msg) { return nodeError(name, "Loop", msg); };
  const onnx::GraphProto *body = graphAttr(np, "body");
  if (!body)
    return fail("has no graph attribute 'body'");
  if (np.input_size() < 2)
    return fail("needs the inputs M and cond (either may be empty)");
  const int carried = np.input_size() - 2;
  if (body->input_size() != carried + 2 || body->output_size() < carried + 1)
    return fail(llvm::formatv("its body takes {0} inputs and gives {1} outputs; {2} loop-carried "
                              "values need {3} inputs and at least {4} outputs",
                              body->input_size(), body->output_size(), carried, carried + 2,
                              carried + 1));
  const int scans = body->output_size() - 1 - carried;
  if (np.output_size() > carried + scans)
    return fail(llvm::formatv("has {0} outputs; its body gives {1}", np.output_size(),
                              carried + scans));
  auto lookup = [&](const std::string &value) { return inputValue(name, "Loop", value); };

  std::optional<int64_t> tripCount;
  if (!np.input(0).empty()) {
    auto m = lookup(np.input(0));
    if (!m)
      return m.takeError();
    if (!(*m)->isConstant())
      return nonConstantError(name, "Loop", 0, "the trip count M", **m);
    if ((*m)->getConstant().numElements() != 1)
      return fail("the trip count M must have one element");
    tripCount = std::max<int64_t>(0, (*m)->getConstant().getAsInt(0));
  }
  // Without a cond input, the body's condition output is ignored.
  const bool conditional = !np.input(1).empty();
  Value *cond = nullptr;
  if (conditional) {
    auto c = lookup(np.input(1));
    if (!c)
      return c.takeError();
    cond = *c;
    if (!cond->isConstant())
      return nonConstantError(name, "Loop", 1, "the condition", *cond);
    if (cond->getConstant().numElements() != 1)
      return fail("the condition must have one element");
  } else if (!tripCount) {
    return fail("has neither a trip count nor a condition, so it never ends");
  }
  ValueList state;
  for (int i = 0; i < carried; ++i) {
    auto v = lookup(np.input(2 + i));
    if (!v)
      return v.takeError();
    state.push_back(*v);
  }

  llvm::StringSet<> local;
  collectDefined(*body, local);
  std::vector<ValueList> scanned(scans);
  const uint64_t limit = opts_.limits.maxUnrolledSteps;
  for (int64_t i = 0; !tripCount || i < *tripCount; ++i) {
    if (conditional && !cond->getConstant().getAsInt(0))
      break;
    if (++unrolled_ > limit)
      return fail(llvm::formatv("the model's Loops run more than {0} iterations in all "
                                "(--max-unrolled-steps): kiln unrolls them",
                                limit));
    onnx::GraphProto iteration = *body;
    const std::string prefix = llvm::formatv("{0}/{1}/", name, i).str();
    prefixNames(iteration, local, prefix);
    // The iteration number, of the rank the body declares (0 or 1).
    bool vector = iteration.input(0).type().tensor_type().shape().dim_size() == 1;
    Tensor number(TensorType(DType::I64, vector ? Shape{1} : Shape{}));
    number.setFromDouble(0, double(i));
    if (!cond) {
      Tensor yes(TensorType(DType::Bool, {}));
      yes.setFromDouble(0, 1);
      cond = graph_->addConstant(prefix + "cond", std::move(yes));
    }
    if (auto err = define(iteration.input(0).name(),
                          graph_->addConstant(iteration.input(0).name(), std::move(number))))
      return err;
    if (auto err = define(iteration.input(1).name(), cond))
      return err;
    for (int k = 0; k < carried; ++k)
      if (auto err = define(iteration.input(2 + k).name(), state[k]))
        return err;
    if (auto err = importSubgraph(emitter, iteration))
      return err;
    auto next = lookup(iteration.output(0).name());
    if (!next)
      return next.takeError();
    if (conditional && !(*next)->isConstant())
      return fail(llvm::formatv("its body computes the condition of iteration {0} at run time; "
                                "kiln unrolls a Loop only where it folds at compile time",
                                i + 1));
    if (conditional && (*next)->getConstant().numElements() != 1)
      return fail("its body's condition must have one element");
    cond = *next;
    for (int k = 0; k < carried; ++k) {
      auto v = lookup(iteration.output(1 + k).name());
      if (!v)
        return v.takeError();
      state[k] = *v;
    }
    for (int k = 0; k < scans; ++k) {
      auto v = lookup(iteration.output(1 + carried + k).name());
      if (!v)
        return v.takeError();
      scanned[k].push_back(*v);
    }
  }

  for (int k = 0; k < carried && k < np.output_size(); ++k)
    if (!np.output(k).empty())
      if (auto err = define(np.output(k), state[k]))
        return err;
  PendingNode stack;
  stack.name = name.str();
  stack.kind = OpKind::Concat;
  stack.opType = "Loop";
  for (int k = 0; k < scans && carried + k < np.output_size(); ++k) {
    const std::string &out = np.output(carried + k);
    if (out.empty())
      continue;
    if (scanned[k].empty())
      return fail("runs no iteration, so its scan output '" + out + "' has no shape");
    ValueList parts;
    for (Value *v : scanned[k]) {
      Shape shape(v->getType().shape);
      shape.insert(shape.begin(), 1);
      auto r = reshapeTo(emitter, stack, v, shape, "scan");
      if (!r)
        return r.takeError();
      parts.push_back(*r);
    }
    auto y = emitter.emit(OpKind::Concat, name, parts, {{"axis", Attr::ofInt(0)}}, {out});
    if (!y)
      return y.takeError();
    if (auto err = define(out, (*y)[0]))
      return err;
  }
  return llvm::Error::success();
}

} // namespace kiln
