# find_package(<poplibs library>), e.g. find_package(popops): the same imported
# targets as find_package(poplibs).
include("${CMAKE_CURRENT_LIST_DIR}/../poplibs/poplibs-config.cmake")
