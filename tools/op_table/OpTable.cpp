//===- OpTable.cpp - docs/ops.md from the op records ----------------------===//
//
// Prints the table of every op kiln knows, read from the OpDefs (and so from
// OpKinds.def and Activations.def): inputs, attributes with defaults, traits
// and kernel family. docs/ops.md is this program's output, and a test keeps
// it so; `bazel run //tools/op_table:update` rewrites it.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/OpDef.h"

#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <string>

using namespace kiln;

namespace {

std::string arity(unsigned lo, unsigned hi) {
  if (lo == hi)
    return std::to_string(lo);
  return std::to_string(lo) + "-" + (hi == UINT_MAX ? "n" : std::to_string(hi));
}

std::string attributes(const OpDef &d) {
  std::string s;
  for (const AttrSpec &a : d.attrs) {
    s += s.empty() ? "" : ", ";
    s += "`" + std::string(a.name) + "`";
    if (a.defaultValue)
      s += " = " + a.defaultValue->str();
    else if (a.required)
      s += " (required)";
  }
  return s;
}

std::string traits(const OpDef &d) {
  std::string s;
  auto add = [&](OpTrait t, const char *name) {
    if (d.hasTrait(t))
      s += (s.empty() ? "" : ", ") + std::string(name);
  };
  add(kElementwiseTrait, "elementwise");
  add(kReductionTrait, "reduction");
  add(kActivationTrait, "activation");
  add(kQuantPreservingTrait, "quant-preserving");
  add(kInt8KernelTrait, "int8-kernel");
  return s;
}

} // namespace

int main() {
  llvm::raw_ostream &os = llvm::outs();
  unsigned primitives = 0;
  for (const OpDef *d : allOpDefs())
    primitives += d->isPrimitive();
  os << "# kiln's ops\n\n"
     << "Generated from the op records (`compiler/graph/OpKinds.def`, "
        "`compiler/ops/*Ops.cpp`, `compiler/ops/Activations.def`) by "
        "`bazel run //tools/op_table:update`; a test fails when this file "
        "is out of date.\n\n"
     << allOpDefs().size() << " ops, " << primitives
     << " of them primitive: the code generator has a kernel family for "
        "them (a view needs none). The others are lowered to primitives or "
        "folded while importing. An activation also fuses into the epilogue "
        "of a Conv or MatMul.\n\n"
     << "| op | inputs | outputs | attributes | traits | kernel family |\n"
     << "|---|---|---|---|---|---|\n";
  for (const OpDef *d : allOpDefs())
    os << "| " << d->name << " | " << arity(d->minInputs, d->maxInputs)
       << " | " << arity(d->minOutputs, d->maxOutputs) << " | "
       << attributes(*d) << " | " << traits(*d) << " | "
       << kernelFamilyName(d->kernel) << " |\n";
  return 0;
}
