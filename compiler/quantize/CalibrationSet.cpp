#include "compiler/quantize/CalibrationSet.h"

#include "compiler/frontend/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>

namespace kiln {
namespace {

llvm::Error calibrationError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// The index of the input `stem` names, or -1.
int inputOfStem(llvm::StringRef stem, llvm::ArrayRef<std::string> stems) {
  for (size_t i = 0; i < stems.size(); ++i)
    if (stems[i] == stem)
      return i;
  size_t dot = stem.rfind('.');
  if (dot == llvm::StringRef::npos)
    return -1;
  for (size_t i = 0; i < stems.size(); ++i)
    if (stems[i] == stem.take_front(dot))
      return i;
  return -1;
}

/// The samples of `input` that the array in `path` holds.
llvm::Error appendSamples(const Tensor &array, const Value &input,
                          llvm::StringRef path, std::vector<Tensor> &out) {
  const TensorType &want = input.getType();
  if (array.getDType() != DType::F32)
    return calibrationError(path + ": dtype " + dtypeName(array.getDType()) +
                            "; calibration inputs are float32 ('<f4')");
  llvm::ArrayRef<int64_t> got = array.getShape();
  if (got == llvm::ArrayRef<int64_t>(want.shape)) {
    out.push_back(array);
    return llvm::Error::success();
  }
  bool batch = want.rank() > 0 && want.shape[0] == 1 && got.size() == want.rank() &&
               got.drop_front() == llvm::ArrayRef<int64_t>(want.shape).drop_front();
  if (!batch)
    return calibrationError(llvm::formatv(
        "{0}: shape {1} does not fit input '{2}' of shape {3} (one sample, "
        "or a batch [N, ...] when its first dimension is 1)",
        path, shapeStr(got), input.getName(), shapeStr(want.shape)));
  size_t bytes = want.sizeInBytes();
  for (int64_t k = 0; k < got[0]; ++k)
    out.emplace_back(want, array.raw().slice(k * bytes, bytes));
  return llvm::Error::success();
}

} // namespace

std::string calibrationFileStem(llvm::StringRef inputName) {
  std::string stem = inputName.str();
  for (char &c : stem)
    if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.')
      c = '_';
  return stem;
}

llvm::Expected<std::vector<Sample>>
loadCalibrationSet(llvm::StringRef dir, llvm::ArrayRef<const Value *> inputs) {
  llvm::SmallVector<std::string, 2> stems;
  for (const Value *in : inputs) {
    if (in->getType().dtype != DType::F32)
      return calibrationError("input '" + in->getName() + "' is " +
                              in->getType().str() +
                              "; only float32 inputs can be calibrated");
    stems.push_back(calibrationFileStem(in->getName()));
  }
  std::vector<std::vector<std::string>> files(inputs.size());
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef path = it->path();
    if (llvm::sys::path::extension(path) != ".npy")
      continue;
    llvm::StringRef stem = llvm::sys::path::stem(path);
    int input = inputOfStem(stem, stems);
    if (input < 0)
      return calibrationError(path + ": names no graph input (expected " +
                              llvm::join(stems, ".npy, ") +
                              ".npy or NAME.TAG.npy)");
    files[input].push_back(path.str());
  }
  if (ec)
    return calibrationError("calibration directory '" + dir +
                            "': " + ec.message());

  std::vector<std::vector<Tensor>> perInput(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    llvm::sort(files[i]);
    for (const std::string &path : files[i]) {
      auto array = readNpyFile(path);
      if (!array)
        return array.takeError();
      if (auto err = appendSamples(*array, *inputs[i], path, perInput[i]))
        return std::move(err);
    }
    if (perInput[i].empty())
      return calibrationError("calibration directory '" + dir +
                              "' has no samples for input '" +
                              inputs[i]->getName() + "' (" + stems[i] +
                              ".npy or " + stems[i] + ".TAG.npy)");
    if (perInput[i].size() != perInput[0].size())
      return calibrationError(llvm::formatv(
          "calibration directory '{0}': input '{1}' has {2} samples, input "
          "'{3}' has {4}",
          dir, inputs[i]->getName(), perInput[i].size(), inputs[0]->getName(),
          perInput[0].size()));
  }
  if (inputs.empty())
    return calibrationError("the model has no inputs to calibrate");
  size_t n = perInput[0].size();
  if (n < 2)
    return calibrationError("calibration directory '" + dir +
                            "' has one sample; at least two are needed (one "
                            "is held out for the accuracy report)");
  std::vector<Sample> samples(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < inputs.size(); ++i)
      samples[k].push_back(std::move(perInput[i][k]));
  return std::move(samples);
}

bool isHeldOut(size_t index, size_t numSamples) {
  return numSamples < 5 ? index + 1 == numSamples : index % 5 == 4;
}

} // namespace kiln
