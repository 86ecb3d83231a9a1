//===- ExternalData.cpp - ONNX tensors stored beside the model ------------===//

#include "compiler/frontend/onnx/ExternalData.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

namespace kiln {

using onnx::TensorProto;

bool hasExternalData(const TensorProto &t) {
  return t.data_location() == TensorProto::EXTERNAL || t.external_data_size() > 0;
}

namespace {

llvm::Error tensorError(const TensorProto &t, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "tensor '" + t.name() + "': " + msg);
}

/// ONNX's IR: a POSIX path relative to the model's directory, with no "..".
bool staysInModelDir(llvm::StringRef location) {
  if (llvm::sys::path::is_absolute(location, llvm::sys::path::Style::posix))
    return false;
  for (auto it = llvm::sys::path::begin(location, llvm::sys::path::Style::posix),
            end = llvm::sys::path::end(location);
       it != end; ++it)
    if (*it == "..")
      return false;
  return true;
}

} // namespace

llvm::Expected<const llvm::MemoryBuffer *>
ExternalDataFiles::open(llvm::StringRef location) {
  auto cached = files_.find(location);
  if (cached != files_.end())
    return cached->second.get();
  llvm::SmallString<256> path(*modelDir_);
  llvm::sys::path::append(path, llvm::sys::path::Style::posix, location);
  auto cannotRead = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read external data file '" + path +
                                       "': " + why);
  };
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return cannotRead(ec.message());
  if (!llvm::sys::fs::is_regular_file(status))
    return cannotRead("not a regular file");
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return cannotRead(buf.getError().message());
  const llvm::MemoryBuffer *file = buf->get();
  files_[location] = std::move(*buf);
  return file;
}

llvm::Expected<llvm::StringRef>
ExternalDataFiles::read(const TensorProto &t, uint64_t expectedBytes) {
  if (t.data_location() != TensorProto::EXTERNAL)
    return tensorError(t, "has external_data entries but its data_location is "
                          "not EXTERNAL");
  std::string location;
  std::optional<uint64_t> offset, length;
  llvm::StringMap<bool> seen;
  for (const onnx::StringStringEntryProto &e : t.external_data()) {
    llvm::StringRef key = e.key(), value = e.value();
    if (!seen.try_emplace(key, true).second)
      return tensorError(t, "external_data key '" + key + "' appears twice");
    if (key == "location") {
      location = value.str();
    } else if (key == "offset" || key == "length") {
      uint64_t n;
      if (value.getAsInteger(10, n))
        return tensorError(t, "external_data " + key + " '" + value +
                                  "' is not a non-negative integer");
      (key == "offset" ? offset : length) = n;
    } else if (key != "checksum" && key != "basepath") {
      // checksum (optional SHA-1) is not checked; basepath is what a loader
      // records, and kiln uses the model's own directory.
      return tensorError(t, "unknown external_data key '" + key + "'");
    }
  }
  if (location.empty())
    return tensorError(t, "the data is external but no location names its file");
  if (!modelDir_)
    return tensorError(t, "the data is in the external file '" + location +
                              "', which is found beside the model file; this "
                              "model was not read from a file");
  if (!staysInModelDir(location))
    return tensorError(t, "external data location '" + location +
                              "' is not a relative path inside the model's "
                              "directory");
  auto file = open(location);
  if (!file)
    return tensorError(t, llvm::toString(file.takeError()));
  uint64_t size = (*file)->getBufferSize();
  uint64_t start = offset.value_or(0);
  if (start > size)
    return tensorError(t, llvm::formatv("external data offset {0} is past the "
                                        "end of '{1}' ({2} bytes)",
                                        start, location, size));
  uint64_t count = length.value_or(size - start);
  if (count > size - start)
    return tensorError(t, llvm::formatv("external data of {0} bytes at offset "
                                        "{1} runs past the end of '{2}' ({3} "
                                        "bytes)",
                                        count, start, location, size));
  if (count != expectedBytes)
    return tensorError(t, llvm::formatv("external data holds {0} bytes, the "
                                        "dims need {1}",
                                        count, expectedBytes));
  return (*file)->getBuffer().substr(start, count);
}

} // namespace kiln
