//===- TestDir.h - A fresh directory per test, and reading files -*- C++ -*-===//
//
// The command-line tests run kilnc into directories of their own: one per
// test case under Bazel's TEST_TMPDIR, emptied before the case runs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_COMMON_TESTDIR_H
#define KILN_TESTS_COMMON_TESTDIR_H

#include "gtest/gtest.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kiln::test {

/// An empty directory named after the running test case.
inline std::filesystem::path freshTestDir() {
  const char *tmp = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(tmp ? tmp : "/tmp") /
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The whole file, or "" when it cannot be read.
inline std::string readFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace kiln::test

#endif
