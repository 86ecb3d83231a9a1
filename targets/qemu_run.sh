#!/usr/bin/env bash
# Runs a program built for a //targets platform under QEMU, with its
# arguments; exits with the program's exit status. The .bazelrc configs use it
# as --run_under, so `bazel test` and `bazel run` work as on the host.
#
# usage: qemu_run.sh MACHINE PROGRAM [ARGS...]
#   MACHINE  aarch64-linux: Linux user mode (qemu-aarch64, Debian's
#            cross-glibc under /usr/aarch64-linux-gnu);
#            mps2-an385 | mps2-an386 | mps2-an500: the bare-metal board
#            (qemu-system-arm). The program talks to the host through
#            semihosting (output, files relative to the working directory,
#            the exit status); it gets PROGRAM ARGS as its command line,
#            which is why no argument may contain a space. -icount shift=0
#            makes each instruction advance virtual time by 1 ns, so runs
#            are repeatable and SysTick counts instructions
#            (benchmarks/device).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 MACHINE PROGRAM [ARGS...]" >&2
  exit 2
fi
machine=$1
shift

case "$machine" in
  aarch64-linux)
    exec qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"
    ;;
  mps2-an385 | mps2-an386 | mps2-an500)
    semihosting="enable=on,target=native"
    for arg in "$@"; do
      if [[ "$arg" == *" "* ]]; then
        echo "qemu_run: a semihosting argument cannot contain a space: '$arg'" >&2
        exit 2
      fi
      semihosting+=",arg=${arg//,/,,}" # QEMU option syntax: ',' is written ',,'
    done
    exec qemu-system-arm -M "$machine" -nographic -monitor none -serial none \
      -icount shift=0 -semihosting-config "$semihosting" -kernel "$1"
    ;;
  *)
    echo "qemu_run: unknown machine '$machine'" >&2
    exit 2
    ;;
esac
