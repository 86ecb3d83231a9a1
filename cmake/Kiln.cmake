# kiln_add_bundle(NAME MODEL path [TARGET triple] [MCPU cpu] [MATTR features]
#                 [FLOAT_ABI soft|softfp|hard] [EMBED_WEIGHTS] [DIMS name=value...])
#
# Compiles MODEL with kilnc at build time (again whenever the model or kilnc
# changes) into NAME.o, NAME.h and NAME.weights.bin, and makes NAME a static
# library of the bundle: link it and #include "NAME.h". The weights file's
# path is the target's KILN_WEIGHTS_FILE property. kilnc's options are
# README's "Compiling a model". Without TARGET the bundle is for the host
# architecture and the CPU KILN_HOST_CPU (x86-64-v3 on x86-64, generic
# elsewhere), never the build machine's own: a bundle built on one machine
# runs on every machine of that level, as kiln_bundle's do in Bazel.
#
# `make install PREFIX=...` puts this file in PREFIX/lib/cmake/Kiln, kilnc
# in PREFIX/bin and kiln.h in PREFIX/include: find_package(Kiln) with
# CMAKE_PREFIX_PATH=PREFIX.
include_guard(GLOBAL)

get_filename_component(_kiln_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(KILNC "${_kiln_prefix}/bin/kilnc" CACHE FILEPATH "kilnc, run at build time")
set(KILN_INCLUDE_DIR "${_kiln_prefix}/include" CACHE PATH "the directory of kiln.h")
if(NOT EXISTS "${KILNC}")
  message(FATAL_ERROR "kiln: no kilnc at ${KILNC} (set KILNC)")
endif()

if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_kiln_default_host_cpu x86-64-v3)
else()
  set(_kiln_default_host_cpu generic)
endif()
set(KILN_HOST_CPU "${_kiln_default_host_cpu}" CACHE STRING
    "the CPU of bundles built without TARGET or MCPU")

function(kiln_add_bundle name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EMBED_WEIGHTS" "MODEL;TARGET;MCPU;MATTR;FLOAT_ABI" "DIMS")
  if(NOT arg_MODEL)
    message(FATAL_ERROR "kiln_add_bundle(${name}): MODEL is required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kiln_add_bundle(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(model "${arg_MODEL}" ABSOLUTE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}_kiln")
  set(flags --name ${name})
  if(NOT arg_TARGET AND NOT arg_MCPU)
    set(arg_MCPU "${KILN_HOST_CPU}")
  endif()
  foreach(option TARGET MCPU MATTR FLOAT_ABI)
    if(arg_${option})
      string(TOLOWER "--${option}" flag)
      string(REPLACE "_" "-" flag "${flag}")
      list(APPEND flags ${flag} ${arg_${option}})
    endif()
  endforeach()
  if(arg_EMBED_WEIGHTS)
    list(APPEND flags --embed-weights)
  endif()
  foreach(dim IN LISTS arg_DIMS)
    list(APPEND flags --dim ${dim})
  endforeach()

  add_custom_command(
    OUTPUT "${out}/${name}.o" "${out}/${name}.h" "${out}/${name}.weights.bin"
    COMMAND "${KILNC}" "${model}" -o "${out}" ${flags}
    DEPENDS "${model}" "${KILNC}"
    COMMENT "kilnc ${arg_MODEL} -> ${name}"
    VERBATIM)
  # An object file among a library's sources is linked in as it is.
  add_library(${name} STATIC "${out}/${name}.o" "${out}/${name}.h")
  set_target_properties(${name} PROPERTIES
    LINKER_LANGUAGE C
    KILN_WEIGHTS_FILE "${out}/${name}.weights.bin")
  target_include_directories(${name} PUBLIC "${out}" "${KILN_INCLUDE_DIR}")
endfunction()
