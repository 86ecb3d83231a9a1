//===- Isolation.cpp - One child process per conformance case -------------===//
//
// The child writes "@stage N\n" lines as it enters each stage, then
// "@result STATUS MAXERROR\n" and the detail, to a pipe; its stderr goes to
// a second pipe whose tail explains a crash (LLVM's fatal errors, aborts).
//
//===----------------------------------------------------------------------===//

#include "tests/conformance/Isolation.h"

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kiln {
namespace conformance {
namespace {

using Clock = std::chrono::steady_clock;

/// How much of a child's stderr a crash report keeps.
constexpr size_t kStderrTail = 600;

void writeAll(int fd, llvm::StringRef s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n <= 0)
      return;
    s = s.drop_front(n);
  }
}

[[noreturn]] void childMain(const std::string &dir, int out, int err) {
  ::dup2(err, STDERR_FILENO);
  ::close(err);
  CaseResult r = runCase(dir, [&](Stage s) {
    writeAll(out, "@stage " + std::to_string(int(s)) + "\n");
  });
  char head[64];
  std::snprintf(head, sizeof head, "@result %d %.17g\n", int(r.status),
                r.maxError);
  writeAll(out, head);
  writeAll(out, r.detail);
  ::close(out);
  ::_exit(0);
}

struct Child {
  size_t index;
  pid_t pid;
  int out, err;
  std::string protocol, stderrTail;
  Clock::time_point start;
  bool timedOut = false;
};

/// Reads what is available on `fd` into `into`; false at end of file.
bool drain(int fd, std::string &into, size_t keepTail) {
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n <= 0)
    return false;
  into.append(buf, n);
  if (keepTail && into.size() > keepTail)
    into.erase(0, into.size() - keepTail);
  return true;
}

CaseResult decode(const Child &c, int waitStatus, unsigned timeoutSeconds) {
  llvm::StringRef p = c.protocol;
  size_t at = p.find("@result ");
  bool exitedCleanly = WIFEXITED(waitStatus) && WEXITSTATUS(waitStatus) == 0;
  if (at != llvm::StringRef::npos && exitedCleanly && !c.timedOut) {
    llvm::StringRef rest = p.drop_front(at + 8);
    auto [line, detail] = rest.split('\n');
    auto [status, maxError] = line.split(' ');
    CaseResult r;
    r.status = static_cast<Status>(std::atoi(status.str().c_str()));
    r.maxError = std::strtod(maxError.str().c_str(), nullptr);
    r.detail = detail.str();
    return r;
  }
  // The last stage the child entered.
  Stage stage = Stage::Load;
  for (size_t pos = p.find("@stage "); pos != llvm::StringRef::npos;
       pos = p.find("@stage ", pos + 1))
    stage = static_cast<Stage>(std::atoi(p.substr(pos + 7).str().c_str()));
  std::string what;
  if (c.timedOut)
    what = "timed out after " + std::to_string(timeoutSeconds) + " s";
  else if (WIFSIGNALED(waitStatus))
    what = std::string("crashed (") + strsignal(WTERMSIG(waitStatus)) + ")";
  else
    what = "exited with status " + std::to_string(WEXITSTATUS(waitStatus));
  CaseResult r;
  r.status = stage == Stage::Run ? Status::Fail : Status::CompileError;
  r.detail = what + " while " + stageName(stage).str();
  llvm::StringRef tail = llvm::StringRef(c.stderrTail).trim();
  if (!tail.empty())
    r.detail += ": " + tail.str();
  return r;
}

} // namespace

void runIsolated(llvm::ArrayRef<std::string> caseDirs,
                 const IsolationOptions &opts,
                 llvm::function_ref<void(size_t, const CaseResult &)> onResult) {
  std::vector<Child> running;
  size_t next = 0;
  unsigned jobs = std::max(1u, opts.jobs);
  while (next < caseDirs.size() || !running.empty()) {
    while (running.size() < jobs && next < caseDirs.size()) {
      int out[2], err[2];
      if (::pipe(out) != 0 || ::pipe(err) != 0) {
        onResult(next++, {Status::CompileError, "cannot create a pipe", 0});
        continue;
      }
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      pid_t pid = ::fork();
      if (pid == 0) {
        ::close(out[0]);
        ::close(err[0]);
        for (const Child &c : running) {
          ::close(c.out);
          ::close(c.err);
        }
        childMain(caseDirs[next], out[1], err[1]);
      }
      ::close(out[1]);
      ::close(err[1]);
      if (pid < 0) {
        ::close(out[0]);
        ::close(err[0]);
        onResult(next++, {Status::CompileError, "cannot fork", 0});
        continue;
      }
      running.push_back({next++, pid, out[0], err[0], "", "", Clock::now()});
    }

    std::vector<pollfd> fds;
    for (const Child &c : running) {
      fds.push_back({c.out, POLLIN, 0});
      fds.push_back({c.err, POLLIN, 0});
    }
    ::poll(fds.data(), fds.size(), 200);
    for (size_t i = 0; i < running.size();) {
      Child &c = running[i];
      if (c.err >= 0 && (fds[2 * i + 1].revents & (POLLIN | POLLHUP)) &&
          !drain(c.err, c.stderrTail, kStderrTail)) {
        ::close(c.err);
        c.err = -1;
      }
      bool open = true;
      if (fds[2 * i].revents & (POLLIN | POLLHUP))
        open = drain(c.out, c.protocol, 0);
      if (open && !c.timedOut &&
          Clock::now() - c.start > std::chrono::seconds(opts.timeoutSeconds)) {
        ::kill(c.pid, SIGKILL);
        c.timedOut = true;
      }
      if (open) {
        ++i;
        continue;
      }
      // The result is complete; collect the rest of stderr and the child.
      if (c.err >= 0) {
        while (drain(c.err, c.stderrTail, kStderrTail)) {
        }
        ::close(c.err);
      }
      ::close(c.out);
      int status = 0;
      ::waitpid(c.pid, &status, 0);
      onResult(c.index, decode(c, status, opts.timeoutSeconds));
      running.erase(running.begin() + i);
      fds.erase(fds.begin() + 2 * i, fds.begin() + 2 * i + 2);
    }
  }
}

CaseResult runOneIsolated(const std::string &caseDir, unsigned timeoutSeconds) {
  CaseResult result;
  runIsolated({caseDir}, {1, timeoutSeconds},
              [&](size_t, const CaseResult &r) { result = r; });
  return result;
}

} // namespace conformance
} // namespace kiln
