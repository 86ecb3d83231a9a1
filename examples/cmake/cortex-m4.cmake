# CMake toolchain file: Debian's arm-none-eabi gcc and newlib for a Cortex-M4F,
# with semihosting I/O (librdimon) as QEMU's MPS2 boards provide it.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# No startup code or linker script yet when CMake tries the compiler.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(cpu_flags "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${cpu_flags} -ffunction-sections -fdata-sections")
# The program brings its own startup code; newlib's objects lack .note.GNU-stack.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "${cpu_flags} -nostartfiles --specs=rdimon.specs -Wl,--gc-sections -Wl,--no-warn-execstack")
