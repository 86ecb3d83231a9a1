//===- CalibrationSet.h - The inputs calibration runs on -------*- C++ -*-===//
//
// A calibration directory holds .npy files (float32, C order), each named
// after the graph input it feeds:
//
//   NAME.npy  or  NAME.TAG.npy     (TAG: any text, e.g. 000, 001, ...)
//
// NAME is the input's name with every character other than a letter, digit,
// '_', '-' or '.' written as '_'. A file whose stem equals an input's name
// belongs to that input, else the stem without its last ".TAG" must. A file
// holds one sample (the input's shape) or, when the input's first dimension
// is 1, a batch of N samples (shape [N, rest of the input's shape]). Each
// input's files are read in name order; the k-th sample of every input
// together form sample k, so every input needs the same number of samples.
// Files that are not .npy are ignored; a .npy file that names no input is an
// error, as is a directory with no samples.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANTIZE_CALIBRATIONSET_H
#define KILN_QUANTIZE_CALIBRATIONSET_H

#include "compiler/graph/Graph.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// Samples, each one tensor per graph input in graph-input order.
using Sample = std::vector<Tensor>;

/// The file name stem that stands for the graph input `inputName`.
std::string calibrationFileStem(llvm::StringRef inputName);

/// Reads the samples in `dir` for the float32 inputs `inputs`; an error names
/// the file (or the input) that is missing, misnamed or mis-shaped.
llvm::Expected<std::vector<Sample>>
loadCalibrationSet(llvm::StringRef dir, llvm::ArrayRef<const Value *> inputs);

/// The samples the accuracy report holds out from calibration: every fifth
/// (indices 4, 9, ...), or the last one when there are fewer than five.
/// There must be at least two samples.
bool isHeldOut(size_t index, size_t numSamples);

} // namespace kiln

#endif
