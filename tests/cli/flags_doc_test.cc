// kilnc's flags are listed once, in its flag table (compiler/kilnc/Flags.cpp),
// which `kilnc --help` prints. README's option table under "Compiling a
// model: `kilnc`" must list exactly those flags with the same argument
// spelling, and bundles/defs.bzl may pass only those flags.

#include "tests/common/TestDir.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

std::string kilncPath, readmePath, defsPath;

using kiln::test::readFile;

std::string runHelp() {
  std::string out;
  FILE *p = popen((kilncPath + " --help").c_str(), "r");
  if (!p)
    return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
    out.append(buf, n);
  pclose(p);
  return out;
}

/// Flag spelling -> its argument ("" for none).
using FlagArgs = std::map<std::string, std::string>;

/// From --help's lines "  -o, --output DIR   help": every spelling takes
/// the argument written after the last one.
FlagArgs helpFlags(const std::string &help) {
  FlagArgs flags;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) != 0)
      continue;
    std::string column = line.substr(2, line.find("  ", 2) - 2);
    std::string last = column.substr(column.rfind(", ") == std::string::npos
                                         ? 0
                                         : column.rfind(", ") + 2);
    size_t space = last.find(' ');
    std::string arg = space == std::string::npos ? "" : last.substr(space + 1);
    std::istringstream names(column.substr(0, column.size() - last.size()) +
                             last.substr(0, space));
    for (std::string name; std::getline(names >> std::ws, name, ',');)
      flags[name] = arg;
  }
  return flags;
}

/// From the first cell of each row of README's kilnc option table: every
/// `-flag ARG` code span.
FlagArgs readmeFlags(const std::string &readme) {
  FlagArgs flags;
  size_t begin = readme.find("## Compiling a model: `kilnc`");
  if (begin == std::string::npos)
    return flags;
  size_t end = readme.find("\n## ", begin + 1);
  std::istringstream lines(readme.substr(begin, end - begin));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `-", 0) != 0)
      continue;
    // The first cell ends at the first '|' that is not escaped as "\|".
    size_t cellEnd = 1;
    while ((cellEnd = line.find('|', cellEnd)) != std::string::npos &&
           line[cellEnd - 1] == '\\')
      ++cellEnd;
    std::string cell = line.substr(1, cellEnd - 1);
    cell = std::regex_replace(cell, std::regex(R"(\\\|)"), "|");
    std::regex span("`(-[^` ]+) ?([^`]*)`");
    for (std::sregex_iterator it(cell.begin(), cell.end(), span), e; it != e; ++it)
      flags[(*it)[1]] = (*it)[2];
  }
  return flags;
}

std::string spelled(const std::string &flag, const std::string &arg) {
  return "'" + flag + (arg.empty() ? "" : " " + arg) + "'";
}

TEST(FlagsDoc, HelpListsFlags) {
  FlagArgs help = helpFlags(runHelp());
  EXPECT_EQ(help.count("--output"), 1u);
  EXPECT_EQ(help["-o"], "DIR");
  EXPECT_EQ(help.count("--help"), 1u);
}

TEST(FlagsDoc, ReadmeListsEveryFlag) {
  FlagArgs readme = readmeFlags(readFile(readmePath));
  ASSERT_FALSE(readme.empty()) << "no kilnc option table found in " << readmePath;
  for (const auto &[flag, arg] : helpFlags(runHelp())) {
    auto it = readme.find(flag);
    if (it == readme.end())
      ADD_FAILURE() << "README's kilnc option table lacks " << spelled(flag, arg);
    else
      EXPECT_EQ(it->second, arg) << "README spells " << spelled(flag, it->second)
                                 << ", kilnc --help " << spelled(flag, arg);
  }
}

TEST(FlagsDoc, ReadmeListsNoOtherFlag) {
  FlagArgs help = helpFlags(runHelp());
  for (const auto &[flag, arg] : readmeFlags(readFile(readmePath)))
    EXPECT_EQ(help.count(flag), 1u)
        << "README's kilnc option table lists " << spelled(flag, arg)
        << ", which kilnc's flag table (compiler/kilnc/Flags.cpp) lacks";
}

TEST(FlagsDoc, BazelRulePassesOnlyKilncFlags) {
  FlagArgs help = helpFlags(runHelp());
  std::string defs = readFile(defsPath);
  std::regex added(R"re(args\.add\("(-[^"]+)")re");
  int seen = 0;
  for (std::sregex_iterator it(defs.begin(), defs.end(), added), e; it != e; ++it, ++seen)
    EXPECT_EQ(help.count((*it)[1]), 1u)
        << defsPath << " passes '" << (*it)[1] << "', which kilnc does not take";
  EXPECT_GT(seen, 0) << "no args.add(\"--flag\", ...) found in " << defsPath;
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 4) {
    fprintf(stderr, "usage: %s KILNC README.md DEFS.bzl\n", argv[0]);
    return 2;
  }
  kilncPath = argv[1];
  readmePath = argv[2];
  defsPath = argv[3];
  return RUN_ALL_TESTS();
}
