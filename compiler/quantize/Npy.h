//===- Npy.h - NumPy .npy files of float32 ---------------------*- C++ -*-===//
//
// Calibration inputs come as .npy files, the format every Python pipeline
// can write (numpy.save). Only what such data is: little-endian float32 in
// C order, format versions 1 to 3.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANTIZE_NPY_H
#define KILN_QUANTIZE_NPY_H

#include "compiler/graph/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// Parses the bytes of a .npy file; an error says what is wrong (another
/// dtype, Fortran order, a truncated file) and names `path`.
llvm::Expected<Tensor> parseNpy(llvm::StringRef bytes, llvm::StringRef path);

/// Reads and parses the .npy file at `path`.
llvm::Expected<Tensor> readNpyFile(llvm::StringRef path);

} // namespace kiln

#endif
