# find_package(Kiln): kiln_add_bundle() (Kiln.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/Kiln.cmake")
