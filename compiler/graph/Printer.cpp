#include "compiler/graph/Printer.h"

#include "llvm/ADT/DenseMap.h"

namespace kiln {
namespace {

/// Escapes `s` for a double-quoted string (the text form's output names and
/// every Graphviz label).
std::string quoted(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

/// Attributes that differ from the op's default, in name order.
std::vector<std::pair<llvm::StringRef, const Attr *>>
nonDefaultAttrs(const Node &n) {
  std::vector<std::pair<llvm::StringRef, const Attr *>> out;
  for (const auto &kv : n.getAttrs()) {
    const AttrSpec *spec = n.getDef().findAttr(kv.first);
    if (spec && spec->defaultValue && *spec->defaultValue == kv.second)
      continue;
    out.push_back({kv.first, &kv.second});
  }
  return out;
}

void printValueRef(const Value *v, llvm::raw_ostream &os) {
  if (v)
    os << '%' << v->getName();
  else
    os << "none";
}

} // namespace

void printGraph(const Graph &g, llvm::raw_ostream &os) {
  os << "graph " << g.getName() << " {\n";
  for (const Value *v : g.getInputs())
    os << "  input %" << v->getName() << " : " << v->getType().str() << '\n';
  for (const Value *v : g.getConstants()) {
    os << "  const %" << v->getName() << " : " << v->getType().str();
    std::string data = tensorDataStr(v->getConstant());
    if (!data.empty())
      os << " = " << data;
    os << '\n';
  }
  for (const Node *n : g.getNodes()) {
    os << "  ";
    for (unsigned i = 0; i < n->getNumOutputs(); ++i) {
      os << (i ? ", " : "");
      printValueRef(n->getOutput(i), os);
    }
    os << " = " << n->getOpName() << '(';
    for (unsigned i = 0; i < n->getNumInputs(); ++i) {
      os << (i ? ", " : "");
      printValueRef(n->getInput(i), os);
    }
    os << ')';
    auto attrs = nonDefaultAttrs(*n);
    if (!attrs.empty()) {
      os << " {";
      for (size_t i = 0; i < attrs.size(); ++i)
        os << (i ? ", " : "") << attrs[i].first << '='
           << attrs[i].second->str();
      os << '}';
    }
    os << " : ";
    for (unsigned i = 0; i < n->getNumOutputs(); ++i)
      os << (i ? ", " : "") << n->getOutput(i)->getType().str();
    os << '\n';
  }
  for (const GraphOutput &o : g.getOutputs()) {
    os << "  output " << quoted(o.name) << " = ";
    printValueRef(o.value, os);
    os << '\n';
  }
  os << "}\n";
}

void printGraphDot(const Graph &g, llvm::raw_ostream &os) {
  // Vertex ids are positional (in3, c7, n12, out0) so that arbitrary value
  // and node names only ever appear inside escaped labels.
  llvm::DenseMap<const Value *, std::string> sourceIds;
  llvm::DenseMap<const Node *, std::string> nodeIds;
  os << "digraph " << quoted(g.getName()) << " {\n";
  os << "  node [fontname=\"monospace\"];\n";
  unsigned idx = 0;
  for (const Value *v : g.getInputs()) {
    std::string id = "in" + std::to_string(idx++);
    sourceIds[v] = id;
    os << "  " << id << " [shape=invhouse, label="
       << quoted(v->getName().str() + "\n" + v->getType().str()) << "];\n";
  }
  idx = 0;
  for (const Value *v : g.getConstants()) {
    std::string id = "c" + std::to_string(idx++);
    sourceIds[v] = id;
    os << "  " << id << " [shape=note, label="
       << quoted(v->getName().str() + "\n" + v->getType().str()) << "];\n";
  }
  idx = 0;
  for (const Node *n : g.getNodes()) {
    std::string id = "n" + std::to_string(idx++);
    nodeIds[n] = id;
    std::string label = n->getOpName().str() + "\n" + n->getName().str();
    for (const Value *out : n->getOutputs())
      label += "\n" + out->getType().str();
    os << "  " << id << " [shape=box, style=rounded, label=" << quoted(label)
       << "];\n";
  }
  // One edge from a value to whatever reads it; a result of a multi-result
  // node carries its index so the edges can be told apart.
  auto edge = [&](const Value *v, const std::string &to) {
    if (v->isResult()) {
      const Node *p = v->getProducer();
      os << "  " << nodeIds.lookup(p) << " -> " << to;
      if (p->getNumOutputs() > 1)
        os << " [label=" << quoted(std::to_string(v->getResultNo())) << "]";
      os << ";\n";
      return;
    }
    os << "  " << sourceIds.lookup(v) << " -> " << to << ";\n";
  };
  for (const Node *n : g.getNodes())
    for (const Value *v : n->getInputs())
      if (v)
        edge(v, nodeIds[n]);
  idx = 0;
  for (const GraphOutput &o : g.getOutputs()) {
    std::string id = "out" + std::to_string(idx++);
    os << "  " << id << " [shape=house, label=" << quoted(o.name) << "];\n";
    if (o.value)
      edge(o.value, id);
  }
  os << "}\n";
}

} // namespace kiln
