# find_package(poplar): the imported target `poplar` (libpoplar.so and the include
# directory), as the Poplar SDK's lib/cmake/poplar provides it.
if(NOT TARGET poplar)
  include("${CMAKE_CURRENT_LIST_DIR}/poplar-targets.cmake")
endif()
set(poplar_FOUND TRUE)
