//===- FileWriter.cpp - All-or-nothing output files -----------------------===//

#include "compiler/bundle/BundleWriter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

namespace {

llvm::Error ioError(const llvm::Twine &path, std::error_code ec) {
  return llvm::createStringError(ec, "cannot write '" + path + "': " + ec.message());
}

/// Writes `bytes` to a new temporary file next to `path`; returns its name.
llvm::Expected<std::string> writeTemp(llvm::StringRef path, llvm::StringRef bytes) {
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%%%";
  int fd;
  llvm::SmallString<256> tmp;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, tmp))
    return ioError(path, ec);
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os.write(bytes.data(), bytes.size());
  os.close();
  if (os.has_error()) {
    std::error_code ec = os.error();
    os.clear_error();
    llvm::sys::fs::remove(tmp);
    return ioError(path, ec);
  }
  return std::string(tmp);
}

} // namespace

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef bytes) {
  auto tmp = writeTemp(path, bytes);
  if (!tmp)
    return tmp.takeError();
  if (std::error_code ec = llvm::sys::fs::rename(*tmp, path)) {
    llvm::sys::fs::remove(*tmp);
    return ioError(path, ec);
  }
  return llvm::Error::success();
}

llvm::Error writeBundle(llvm::StringRef dir, const BundleFiles &files) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return ioError(dir, ec);
  auto join = [&](llvm::StringRef suffix) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, files.name + suffix);
    return std::string(p);
  };
  struct Output {
    std::string path;
    llvm::StringRef bytes;
    std::string tmp;
  };
  Output outs[] = {
      {join(".o"), llvm::StringRef(files.object.data(), files.object.size()), {}},
      {join(".h"), files.header, {}},
      {join(".weights.bin"),
       llvm::StringRef(reinterpret_cast<const char *>(files.weights.data()),
                       files.weights.size()),
       {}},
  };
  auto cleanup = [&] {
    for (Output &o : outs)
      if (!o.tmp.empty())
        llvm::sys::fs::remove(o.tmp);
  };
  for (Output &o : outs) {
    auto tmp = writeTemp(o.path, o.bytes);
    if (!tmp) {
      cleanup();
      return tmp.takeError();
    }
    o.tmp = *tmp;
  }
  for (size_t i = 0; i < std::size(outs); ++i) {
    if (std::error_code ec = llvm::sys::fs::rename(outs[i].tmp, outs[i].path)) {
      // Undo the renames already done so no partial bundle remains.
      for (size_t j = 0; j < i; ++j)
        llvm::sys::fs::remove(outs[j].path);
      cleanup();
      return ioError(outs[i].path, ec);
    }
    outs[i].tmp.clear();
  }
  return llvm::Error::success();
}

} // namespace kiln
