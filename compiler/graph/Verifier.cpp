#include "compiler/graph/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>
#include <vector>

namespace kiln {
namespace {

class Verifier {
public:
  explicit Verifier(const Graph &g) : g_(g) {}

  llvm::Error run() {
    checkSources();
    for (const Node *n : g_.getNodes())
      checkNode(*n);
    checkOutputs();
    checkUseLists();
    if (problems_.empty())
      return llvm::Error::success();
    std::string msg =
        llvm::formatv("graph '{0}' is invalid ({1} problem{2}):", g_.getName(),
                      problems_.size(), problems_.size() == 1 ? "" : "s");
    for (const std::string &p : problems_)
      msg += "\n  " + p;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  }

private:
  void report(const llvm::Twine &msg) { problems_.push_back(msg.str()); }
  void report(const Node &n, const llvm::Twine &msg) {
    problems_.push_back(llvm::toString(nodeError(n, msg)));
  }

  /// The graph's use-lists against the input slots counted here.
  void checkUseLists() {
    std::vector<const Value *> values(g_.getInputs().begin(),
                                      g_.getInputs().end());
    for (const Value *v : g_.getConstants())
      values.push_back(v);
    for (const Node *n : g_.getNodes())
      for (const Value *v : n->getOutputs())
        if (v)
          values.push_back(v);
    for (const Value *v : values) {
      auto it = readers_.find(v);
      unsigned counted = it == readers_.end() ? 0 : it->second;
      if (v->getNumUses() != counted)
        report(llvm::formatv("value '{0}' has {1} uses recorded but {2} node "
                             "inputs read it",
                             v->getName(), v->getNumUses(), counted));
    }
  }

  void checkValueName(const Value *v) {
    if (!valueNames_.insert(v->getName()).second)
      report("value name '" + v->getName() + "' is used more than once");
  }

  /// Graph inputs and constants are defined before any node runs.
  void checkSources() {
    for (const Value *v : g_.getInputs()) {
      if (!v->isInput())
        report("graph input '" + v->getName() + "' is not an input value");
      checkValueName(v);
      defined_.insert(v);
    }
    for (const Value *v : g_.getConstants()) {
      checkValueName(v);
      if (v->getType() != v->getConstant().getType())
        report("constant '" + v->getName() + "' has type " +
               v->getType().str() + " but its data is " +
               v->getConstant().getType().str());
      defined_.insert(v);
    }
  }

  void checkNode(const Node &n) {
    const OpDef &def = n.getDef();
    if (!nodeNames_.insert(n.getName()).second)
      report(n, "node name is used more than once");

    bool inputsOk = true;
    if (n.getNumInputs() < def.minInputs || n.getNumInputs() > def.maxInputs) {
      report(n, llvm::formatv("expects {0} to {1} inputs, has {2}",
                              def.minInputs, def.maxInputs, n.getNumInputs()));
      inputsOk = false;
    }
    for (unsigned i = 0; i < n.getNumInputs(); ++i) {
      const Value *v = n.getInput(i);
      if (!v) {
        if (i < def.minInputs) {
          report(n, llvm::formatv("required input {0} is missing", i));
          inputsOk = false;
        }
        continue;
      }
      ++readers_[v];
      if (!defined_.count(v)) {
        report(n, llvm::formatv("input {0} ('{1}') is not defined before use",
                                i, v->getName()));
        inputsOk = false;
      }
    }

    bool outputsOk = true;
    if (n.getNumOutputs() < def.minOutputs ||
        n.getNumOutputs() > def.maxOutputs) {
      report(n,
             llvm::formatv("expects {0} to {1} results, has {2}",
                           def.minOutputs, def.maxOutputs, n.getNumOutputs()));
      outputsOk = false;
    }
    for (unsigned i = 0; i < n.getNumOutputs(); ++i) {
      const Value *v = n.getOutput(i);
      if (!v || !v->isResult() || v->getProducer() != &n ||
          v->getResultNo() != i) {
        report(n,
               llvm::formatv("result {0} does not point back to the node", i));
        outputsOk = false;
        continue;
      }
      checkValueName(v);
    }

    bool attrsOk = checkAttrs(n);
    // The type rule dereferences inputs and reads attributes, so it only runs
    // on a node whose structure is sound.
    if (inputsOk && outputsOk && attrsOk)
      checkTypes(n);
    for (const Value *v : n.getOutputs())
      if (v)
        defined_.insert(v);
  }

  bool checkAttrs(const Node &n) {
    const OpDef &def = n.getDef();
    bool ok = true;
    for (const auto &kv : n.getAttrs()) {
      const AttrSpec *spec = def.findAttr(kv.first);
      if (!spec) {
        report(n, "unsupported attribute '" + kv.first + "'");
        ok = false;
      } else if (spec->kind != kv.second.getKind()) {
        report(n, "attribute '" + kv.first + "' must be " +
                      attrKindName(spec->kind) + ", is " +
                      attrKindName(kv.second.getKind()));
        ok = false;
      }
    }
    for (const AttrSpec &spec : def.attrs) {
      if (n.hasAttr(spec.name))
        continue;
      if (spec.required) {
        report(n,
               llvm::Twine("missing required attribute '") + spec.name + "'");
        ok = false;
      } else if (spec.defaultValue) {
        // Op code reads defaulted attributes without checking for them.
        report(n, llvm::Twine("attribute '") + spec.name +
                      "' has a default but is missing");
        ok = false;
      }
    }
    return ok;
  }

  void checkTypes(const Node &n) {
    auto types = inferTypes(n);
    if (!types) {
      // Type rules report through nodeError, so the message names the node.
      report(llvm::toString(types.takeError()));
      return;
    }
    if (types->size() != n.getNumOutputs()) {
      report(n, llvm::formatv("type rule gives {0} results, node has {1}",
                              types->size(), n.getNumOutputs()));
      return;
    }
    for (unsigned i = 0; i < types->size(); ++i) {
      const TensorType &stored = n.getOutput(i)->getType();
      if (stored != (*types)[i])
        report(n, llvm::formatv("result {0} has type {1} but the type rule "
                                "gives {2}",
                                i, stored.str(), (*types)[i].str()));
    }
  }

  void checkOutputs() {
    llvm::StringSet<> names;
    for (const GraphOutput &o : g_.getOutputs()) {
      if (!names.insert(o.name).second)
        report("graph output name '" + o.name + "' is used more than once");
      if (!o.value)
        report("graph output '" + o.name + "' has no value");
      else if (!defined_.count(o.value))
        report("graph output '" + o.name + "' refers to undefined value '" +
               o.value->getName() + "'");
    }
  }

  const Graph &g_;
  llvm::DenseSet<const Value *> defined_;
  /// How many node inputs hold each value.
  llvm::DenseMap<const Value *, unsigned> readers_;
  llvm::StringSet<> valueNames_;
  llvm::StringSet<> nodeNames_;
  std::vector<std::string> problems_;
};

} // namespace

llvm::Error verifyGraph(const Graph &g) { return Verifier(g).run(); }

} // namespace kiln
