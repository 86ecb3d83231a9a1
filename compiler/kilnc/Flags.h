//===- Flags.h - kilnc's flags, one table -----------------------*- C++ -*-===//
//
// Each flag kilnc takes is one row of a table: its spellings, the argument it
// takes, one line of help and what it does to CompileOptions. The parser and
// --help both read the table, and tests/cli checks README's option table and
// bundles/defs.bzl against --help, so no list of flags is kept by hand.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_KILNC_FLAGS_H
#define KILN_KILNC_FLAGS_H

#include "compiler/driver/Compiler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln::cli {

/// What a command line asks kilnc to do.
enum class Command { Compile, Help, ListPasses };

/// One flag. A flag with an argument takes it as the next word or after '='
/// ("--name lenet", "--name=lenet").
struct Flag {
  llvm::StringLiteral name;      ///< "--output"
  llvm::StringLiteral shortName; ///< "-o", or empty
  llvm::StringLiteral arg;       ///< "DIR", or empty for a flag without one
  llvm::StringLiteral help;
  /// Sets the options from the argument (empty for a flag without one);
  /// null for a flag that is a command of its own or sets a `limit`.
  llvm::Error (*apply)(CompileOptions &opts, llvm::StringRef value);
  Command command = Command::Compile;
  /// The resource limit (CompileOptions::import.limits) a --max-* flag sets
  /// from a count with an optional K, M or G after it.
  uint64_t ResourceLimits::*limit = nullptr;
};

struct CommandLine {
  Command command = Command::Compile;
  CompileOptions options;
};

/// Parses kilnc's arguments (without the program name). A help or list
/// command ends parsing where it stands; a compilation needs a model and -o.
llvm::Expected<CommandLine> parseCommandLine(llvm::ArrayRef<llvm::StringRef> args);

/// The --help text: how to call kilnc, then every flag with its help.
std::string usage();

} // namespace kiln::cli

#endif
