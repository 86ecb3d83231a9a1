//===- CaseRunner.h - One ONNX test case through a compiled bundle -*- C++ -*-===//
//
// A case runs the way a user's model does: the real importer, the default
// pass pipeline, the code generator and the object kilnc would write for the
// host (JitBundle), then every data set's outputs are compared with ONNX's
// recorded ones. runCase does it in-process; runIsolated (Isolation.h) puts
// each case in a child process so a crash or a hang costs only that case.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_CONFORMANCE_CASERUNNER_H
#define KILN_TESTS_CONFORMANCE_CASERUNNER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln {
namespace conformance {

enum class Status {
  Pass,
  /// Compiled, but ran wrongly: an output differs, the run failed, crashed
  /// or timed out.
  Fail,
  /// Compilation failed for a reason other than a missing feature.
  CompileError,
  /// kiln lacks something the case needs (an op, an attribute value, a
  /// dtype); the detail names it.
  Unsupported,
};

llvm::StringRef statusName(Status s);

struct CaseResult {
  Status status = Status::Pass;
  /// Fail: what differs; CompileError: the error; Unsupported: the reason.
  std::string detail;
  /// The largest |got - want| over every output and data set (Fail, Pass).
  double maxError = 0;
};

/// The stages of a case, reported as they start so that a harness can say
/// where a crash or a hang happened.
enum class Stage { Load, Compile, Run };
llvm::StringRef stageName(Stage s);

/// Runs the case in `caseDir` in this process. `onStage` is called as each
/// stage starts.
CaseResult runCase(llvm::StringRef caseDir,
                   llvm::function_ref<void(Stage)> onStage = [](Stage) {});

/// "0.00123": a maximum error as the report prints it.
std::string formatError(double e);

} // namespace conformance
} // namespace kiln

#endif
