//===- NpyHeader.h - .npy file headers for tests ----------------*- C++ -*-===//
//
// Tests that hand kilnc .npy files write them byte by byte, as numpy.save
// does (format 1.0): the header below, then the data.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_COMMON_NPYHEADER_H
#define KILN_TESTS_COMMON_NPYHEADER_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
namespace test {

/// The magic, version and header dictionary of a C-ordered array of numpy
/// type `descr` ('<f4', '<i8', ...), padded to a multiple of 64 bytes.
inline std::string npyHeader(const std::string &descr,
                             const std::vector<int64_t> &shape) {
  std::string dims;
  for (int64_t d : shape)
    dims += std::to_string(d) + ", ";
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += char(1);
  bytes += char(0);
  bytes += char(header.size() & 0xff);
  bytes += char(header.size() >> 8);
  return bytes + header;
}

} // namespace test
} // namespace kiln

#endif
