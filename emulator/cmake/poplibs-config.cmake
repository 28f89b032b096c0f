# find_package(poplibs): the imported targets of the poplibs libraries this prefix
# holds (poputil popops poprand poplin popnn, and gcl), each linking what it uses, poplar
# included.
include("${CMAKE_CURRENT_LIST_DIR}/../poplar/poplar-config.cmake")
foreach(library poputil popops poprand poplin popnn gcl)
  set(targets_file "${CMAKE_CURRENT_LIST_DIR}/../${library}/${library}-targets.cmake")
  if(NOT TARGET ${library} AND EXISTS "${targets_file}")
    include("${targets_file}")
  endif()
endforeach()
unset(targets_file)
set(poplibs_FOUND TRUE)
