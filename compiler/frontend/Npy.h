//===- Npy.h - NumPy .npy files as tensors ---------------------*- C++ -*-===//
//
// Users hand kiln data as .npy files, the format every Python pipeline can
// write (numpy.save): calibration inputs for --quantize, and the values of
// inputs bound with --const-input. Only what such data is: little-endian
// numbers or bools of a DType kiln has, in C order, format versions 1 to 3.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_NPY_H
#define KILN_FRONTEND_NPY_H

#include "compiler/graph/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// Parses the bytes of a .npy file; an error says what is wrong (a dtype
/// kiln lacks, big-endian or Fortran-ordered data, a truncated file) and
/// names `path`.
llvm::Expected<Tensor> parseNpy(llvm::StringRef bytes, llvm::StringRef path);

/// Reads and parses the .npy file at `path`.
llvm::Expected<Tensor> readNpyFile(llvm::StringRef path);

} // namespace kiln

#endif
