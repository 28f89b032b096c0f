# find_package(libpva) or find_package(pva): the imported target `pva` (libpva.so and
# the include directory with pva/pva.hpp), also named `libpva`. It links poplar.
include("${CMAKE_CURRENT_LIST_DIR}/../poplar/poplar-config.cmake")
if(NOT TARGET pva)
  include("${CMAKE_CURRENT_LIST_DIR}/../pva/pva-targets.cmake")
endif()
if(NOT TARGET libpva)
  add_library(libpva INTERFACE IMPORTED)
  target_link_libraries(libpva INTERFACE pva)
endif()
set(libpva_FOUND TRUE)
set(pva_FOUND TRUE)
