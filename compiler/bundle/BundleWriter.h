//===- BundleWriter.h - The bundle's files ---------------------*- C++ -*-===//
#ifndef KILN_BUNDLE_BUNDLEWRITER_H
#define KILN_BUNDLE_BUNDLEWRITER_H

#include "compiler/codegen/StackBound.h"
#include "compiler/lir/LIR.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// Everything a bundle consists of, in memory.
struct BundleFiles {
  std::string name;
  llvm::SmallVector<char, 0> object;
  std::string header;
  std::vector<uint8_t> weights;
};

/// Whether `name` can prefix C identifiers (NAME_run, NAME_bundle, ...).
bool isValidBundleName(llvm::StringRef name);
/// A valid bundle name derived from a file stem ("resnet-18" -> "resnet_18").
std::string bundleNameFromStem(llvm::StringRef stem);

/// The generated C header NAME.h: region sizes, alignment and every I/O
/// tensor's offset and size as macros, NAME_STACK_SIZE where `stack` is
/// known (a comment saying why not otherwise); NAME_bundle and NAME_run
/// declarations.
std::string generateHeader(const lir::Function &f, llvm::StringRef name,
                           bool embeddedWeights, const StackBound &stack);

/// Writes DIR/NAME.o, DIR/NAME.h and DIR/NAME.weights.bin (creating DIR).
/// All or nothing: each file is written to a temporary name first and only
/// renamed into place once all three are complete; on any error none of the
/// outputs (or temporaries) is left behind.
llvm::Error writeBundle(llvm::StringRef dir, const BundleFiles &files);

/// Writes one file the same way (temporary, then rename).
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef bytes);

} // namespace kiln

#endif
