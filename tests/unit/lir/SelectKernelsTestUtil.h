//===- SelectKernelsTestUtil.h - Strategies in the printed LIR -*- C++ -*-===//
//
// The kernel-selection tests read each instruction's strategy from the
// printed LIR, as a user reads it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_UNIT_LIR_SELECTKERNELSTESTUTIL_H
#define KILN_TESTS_UNIT_LIR_SELECTKERNELSTESTUTIL_H

#include "compiler/lir/LIR.h"

#include "gtest/gtest.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln {
namespace test {

/// "result = op[strategy]" of each instruction of the printed LIR, each
/// node's own (no depthwise Conv runs in its 1x1's bands).
inline std::string strategies(const Graph &g, lir::LIROptions opts) {
  opts.depthwiseBands = false;
  auto f = lir::generateLIR(g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  std::string text, out;
  llvm::raw_string_ostream os(text);
  lir::printLIR(*f, os);
  llvm::SmallVector<llvm::StringRef, 16> lines;
  llvm::StringRef(os.str()).split(lines, '\n', -1, false);
  for (llvm::StringRef line : llvm::drop_begin(lines)) {
    llvm::StringRef result = line.ltrim().drop_front().split('@').first;
    llvm::StringRef op = line.split(" = ").second;
    op = op.take_front(op.contains("](") ? op.find("](") + 1 : op.find('('));
    out += (result + " = " + op + "\n").str();
  }
  return out;
}

/// The kernel of the instruction writing `result` in strategies()'s text.
inline std::string kernelOf(llvm::StringRef text, llvm::StringRef result) {
  size_t at = text.find((result + " = ").str());
  EXPECT_NE(at, llvm::StringRef::npos) << result.str();
  return text.drop_front(at + result.size() + 3).split('\n').first.str();
}

} // namespace test
} // namespace kiln

#endif
