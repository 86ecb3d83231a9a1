//===- PassRegistry.h - Passes by name -------------------------*- C++ -*-===//
//
// Pipelines are lists of pass names, so the registry is the one place that
// maps a name to its pass. The table is explicit (no static registration
// objects), which keeps its contents and order deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINE_PASSREGISTRY_H
#define KILN_PIPELINE_PASSREGISTRY_H

#include "compiler/passes/Pass.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace kiln {

/// A new instance of the pass registered as `name`; the error for an unknown
/// name lists the known ones.
llvm::Expected<std::unique_ptr<Pass>> createPass(llvm::StringRef name);

/// Every registered pass name, sorted.
llvm::ArrayRef<llvm::StringRef> registeredPassNames();

} // namespace kiln

#endif
