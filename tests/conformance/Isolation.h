//===- Isolation.h - One child process per conformance case ----*- C++ -*-===//
//
// A case that crashes the compiler or the generated code, or never ends,
// must cost only itself. runIsolated forks a child per case, which runs it
// with runCase and reports the stages it enters and its result through a
// pipe; the parent enforces the timeout and turns a signal or a timeout into
// the case's result, naming the stage it happened in.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_CONFORMANCE_ISOLATION_H
#define KILN_TESTS_CONFORMANCE_ISOLATION_H

#include "tests/conformance/CaseRunner.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace kiln {
namespace conformance {

struct IsolationOptions {
  /// Cases run at the same time.
  unsigned jobs = 1;
  /// Wall-clock limit per case.
  unsigned timeoutSeconds = 60;
};

/// Runs every case of `caseDirs` in a child process of its own, up to
/// `opts.jobs` at a time, and calls `onResult(i, result)` for case i as it
/// finishes (in completion order). A child killed by a signal or by the
/// timeout yields a Fail, or a CompileError when it was not yet running the
/// bundle, with the signal, the stage and the end of its stderr.
void runIsolated(llvm::ArrayRef<std::string> caseDirs,
                 const IsolationOptions &opts,
                 llvm::function_ref<void(size_t, const CaseResult &)> onResult);

/// runIsolated for one case.
CaseResult runOneIsolated(const std::string &caseDir,
                          unsigned timeoutSeconds = 60);

} // namespace conformance
} // namespace kiln

#endif
