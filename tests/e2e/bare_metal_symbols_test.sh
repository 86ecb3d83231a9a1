#!/usr/bin/env bash
# Bundle objects built for Cortex-M link on bare metal with nothing but the
# compiler's run-time helpers: no libc, no libm, no heap. An object built with
# the hard-float ABI has no undefined symbols at all and says so in its Arm
# attributes (arm-none-eabi-ld refuses to mix float ABIs); a soft-float object
# (no FPU) may call only the Arm run-time ABI's single-precision helpers,
# which libgcc and compiler-rt provide. Runs on the host, over the objects.
#
# usage: bare_metal_symbols_test.sh (hard|soft OBJECT)...
set -euo pipefail

nm=/usr/lib/llvm-19/bin/llvm-nm
readelf=/usr/lib/llvm-19/bin/llvm-readelf
soft_float_helpers=(
  __aeabi_fadd __aeabi_fsub __aeabi_frsub __aeabi_fmul __aeabi_fdiv
  __aeabi_fcmpeq __aeabi_fcmplt __aeabi_fcmple __aeabi_fcmpge __aeabi_fcmpgt __aeabi_fcmpun
  __aeabi_f2iz __aeabi_f2uiz __aeabi_i2f __aeabi_ui2f
)

failures=0
fail() {
  echo "FAIL $1: $2"
  failures=$((failures + 1))
}

[ $# -gt 0 ] && [ $(($# % 2)) -eq 0 ] || { echo "usage: $0 (hard|soft OBJECT)..." >&2; exit 2; }
while [ $# -gt 0 ]; do
  abi=$1 object=$2
  shift 2
  undefined=$("$nm" --undefined-only --format=just-symbols "$object")
  attributes=$("$readelf" --file-header --arch-specific "$object")
  grep -q "Machine: *ARM" <<<"$attributes" || fail "$object" "not an Arm object"
  case "$abi" in
    hard)
      [ -z "$undefined" ] || fail "$object" "undefined symbols: $(echo $undefined)"
      grep -q "AAPCS VFP" <<<"$attributes" || fail "$object" "not built for the hard-float ABI"
      ;;
    soft)
      for symbol in $undefined; do
        [[ " ${soft_float_helpers[*]} " == *" $symbol "* ]] ||
          fail "$object" "undefined symbol $symbol is not a soft-float helper"
      done
      ! grep -q "AAPCS VFP" <<<"$attributes" || fail "$object" "built for the hard-float ABI"
      ;;
    *)
      echo "unknown float ABI '$abi'" >&2
      exit 2
      ;;
  esac
  echo "$abi $object: undefined: ${undefined:-none}" | tr '\n' ' '
  echo
done
[ $failures -eq 0 ] && echo PASSED || echo FAILED
exit $((failures > 0))
