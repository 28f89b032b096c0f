#pragma once
// The codelet cache: compiled codelet libraries kept between processes, in
// $POPDSL_CACHE_DIR/codelets or ~/.cache/popdsl/codelets.
//
// It is a directory other processes write, so it is trusted no further than it must be:
// it is used only when it is the user's own and no one else can write to it; a library is
// stored under the SHA-256 of its bytes, with a record of that digest under the key of its
// sources, and is loaded only when the record, its bytes and the ELF magic agree (a
// planted, truncated or damaged file is compiled again, never loaded); files are written
// through exclusive temporary files (O_EXCL: a planted link is not followed) renamed into
// place, so concurrent processes see a whole file or none.
#include <optional>
#include <string>
#include <vector>

namespace poplar::detail {

// The cache's directory, made if missing; "" when there is none or it is not the user's
// own, writable by no one else (then a warning says why, once).
std::string codeletCacheDir();

// The bytes of the library cached for `key`, checked as above; nullopt when there is none
// or what is there does not check.
std::optional<std::string> cachedCodeletLibrary(const std::string &cache, const std::string &key);
void cacheCodeletLibrary(const std::string &cache, const std::string &key, const std::string &bytes);

// The files a codelet source (by its key) included when it was last compiled.
std::optional<std::vector<std::string>> cachedDependencies(const std::string &cache, const std::string &sourceKey);
void cacheDependencies(const std::string &cache, const std::string &sourceKey, const std::vector<std::string> &files);

} // namespace poplar::detail
