#include "compiler/frontend/Npy.h"

#include "llvm/Support/MemoryBuffer.h"

#include <optional>

namespace kiln {
namespace {

llvm::Error npyError(llvm::StringRef path, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + msg);
}

/// The text after `'key':` in the header dictionary, up to the next key.
llvm::StringRef headerField(llvm::StringRef header, llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return {};
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  return rest.consume_front(":") ? rest.ltrim() : llvm::StringRef();
}

/// The DType of a numpy type string ('<f4', '|u1', ...): little-endian or
/// one byte wide.
std::optional<DType> dtypeOfDescr(llvm::StringRef descr) {
  static const std::pair<const char *, DType> kCodes[] = {
      {"f4", DType::F32}, {"f8", DType::F64}, {"f2", DType::F16},
      {"i1", DType::I8},  {"i2", DType::I16}, {"i4", DType::I32},
      {"i8", DType::I64}, {"u1", DType::U8},  {"u2", DType::U16},
      {"u4", DType::U32}, {"u8", DType::U64}, {"b1", DType::Bool}};
  if (descr.size() != 3)
    return std::nullopt;
  char order = descr[0];
  for (auto [code, dtype] : kCodes)
    if (descr.drop_front() == code &&
        (order == '<' || (order == '|' && dtypeSize(dtype) == 1)))
      return dtype;
  return std::nullopt;
}

} // namespace

llvm::Expected<Tensor> parseNpy(llvm::StringRef bytes, llvm::StringRef path) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return npyError(path, "not a .npy file");
  uint8_t major = bytes[6];
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3 || bytes.size() < 8 + lengthBytes)
    return npyError(path, "unsupported .npy version " + llvm::Twine(major));
  size_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
  size_t dataStart = 8 + lengthBytes + headerLength;
  if (bytes.size() < dataStart)
    return npyError(path, "truncated header");
  llvm::StringRef header = bytes.slice(8 + lengthBytes, dataStart);

  llvm::StringRef descrText = headerField(header, "descr");
  llvm::StringRef descr;
  if (descrText.consume_front("'"))
    descr = descrText.take_until([](char c) { return c == '\''; });
  std::optional<DType> dtype = dtypeOfDescr(descr);
  if (!dtype)
    return npyError(path, "dtype '" + descr +
                              "'; kiln reads little-endian float, int, uint "
                              "and bool arrays ('<f4', '<i8', '|u1', '|b1', ...)");
  if (!headerField(header, "fortran_order").starts_with("False"))
    return npyError(path, "Fortran-ordered data; save it in C order");
  llvm::StringRef shapeText = headerField(header, "shape");
  if (!shapeText.consume_front("("))
    return npyError(path, "no shape in the header");
  shapeText = shapeText.take_until([](char c) { return c == ')'; });
  Shape shape;
  llvm::SmallVector<llvm::StringRef, 6> dims;
  shapeText.split(dims, ',', -1, false);
  for (llvm::StringRef d : dims) {
    int64_t n;
    if (d.trim().empty())
      continue;
    if (d.trim().getAsInteger(10, n) || n < 0)
      return npyError(path, "bad shape (" + shapeText + ")");
    shape.push_back(n);
  }
  TensorType type(*dtype, shape);
  if (type.numElements() > kMaxTensorElements ||
      bytes.size() - dataStart != type.sizeInBytes())
    return npyError(path, llvm::Twine(bytes.size() - dataStart) +
                              " data bytes for shape " + shapeStr(shape));
  llvm::ArrayRef<uint8_t> data(
      reinterpret_cast<const uint8_t *>(bytes.data() + dataStart),
      type.sizeInBytes());
  return Tensor(type, data);
}

llvm::Expected<Tensor> readNpyFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError(path, buffer.getError().message());
  return parseNpy((*buffer)->getBuffer(), path);
}

} // namespace kiln
