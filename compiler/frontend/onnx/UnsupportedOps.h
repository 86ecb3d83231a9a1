//===- UnsupportedOps.h - Why kiln lacks an ONNX op ------------*- C++ -*-===//
//
// Internal to the ONNX frontend. Some ONNX ops are outside what an
// ahead-of-time compiler with statically planned memory can offer; the
// "unsupported ops" error says so, rather than leaving a user to wonder
// whether the op is merely missing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_UNSUPPORTEDOPS_H
#define KILN_FRONTEND_ONNX_UNSUPPORTEDOPS_H

#include "llvm/ADT/StringRef.h"

namespace kiln {

/// Why kiln does not compile ONNX op `opType` by design, or "" for an op
/// that is simply not implemented yet.
llvm::StringRef unsupportedOpReason(llvm::StringRef opType);

} // namespace kiln

#endif
