#include "CodeletCache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "Sha256.hpp"

namespace poplar::detail {

namespace {

// Files larger than these are not the cache's: they are not read.
constexpr std::size_t kMaxCachedLibraryBytes = std::size_t(1) << 28, kMaxCacheRecordBytes = std::size_t(1) << 20;

// Whether a file or directory is the user's own and writable by no one else.
bool isPrivate(const struct stat &st) { return st.st_uid == ::geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH)); }

// The bytes of a file of the codelet cache, read only when it is a private regular file
// (not a link, FIFO or device: O_NOFOLLOW, O_NONBLOCK) of at most `maxBytes`; nullopt
// otherwise, or when it cannot be read whole.
std::optional<std::string> readCacheFile(const std::string &path, std::size_t maxBytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::optional<std::string> bytes;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && isPrivate(st) && static_cast<std::size_t>(st.st_size) <= maxBytes) {
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == data.size()) bytes = std::move(data);
  }
  ::close(fd);
  return bytes;
}

// Says once per directory why the codelet cache is not used.
void warnCacheNotUsed(const std::string &path, const std::string &why) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (warned.insert(path).second)
    std::cerr << "popdsl: the codelet cache " << path << " is not used (" << why
              << "): codelets compile in a private temporary directory each time. Make it the user's own and "
                 "writable by no one else (chmod go-w) to use it\n";
}

// Writes `text` to `path` through a new temporary file of the user's alone (mkostemp:
// O_EXCL, so a link planted in its place is not followed), renamed into place, so
// concurrent processes see a whole file or none. False when it could not.
bool publish(const std::string &cache, const std::string &path, const std::string &text) {
  std::string temp = cache + "/.publish-XXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  const bool written = ::close(fd) == 0 && done == text.size();
  if (written && ::rename(temp.c_str(), path.c_str()) == 0) return true;
  ::unlink(temp.c_str());
  return false;
}

bool isSha256Hex(const std::string &text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

} // namespace

std::string codeletCacheDir() {
  std::string base;
  if (const char *env = std::getenv("POPDSL_CACHE_DIR"); env && *env) base = env;
  else if (const char *home = std::getenv("HOME"); home && *home) base = std::string(home) + "/.cache/popdsl";
  else return "";
  // Made private (0700 whatever the umask): a group-writable umask must not open it to others.
  std::string path;
  for (const std::string &part : {base, std::string("codelets")}) {
    path = path.empty() ? part : path + "/" + part;
    for (std::size_t slash = 1; slash != std::string::npos; slash = path.find('/', slash + 1))
      ::mkdir(path.substr(0, slash).c_str(), 0700);
    ::mkdir(path.c_str(), 0700);
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || ::access(path.c_str(), W_OK) != 0) return "";
  if (st.st_uid != ::geteuid()) {
    warnCacheNotUsed(path, "it belongs to user id " + std::to_string(st.st_uid) + ", not to this user");
    return "";
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
    warnCacheNotUsed(path, std::string("others can write to it: mode ") + mode);
    return "";
  }
  return path;
}

// The library the cache holds for `key`: <cache>/<key>.library records the SHA-256 of its
// bytes, which are <cache>/<that digest>.so. Nullopt unless the record, the bytes and the
// ELF magic agree: what does not is compiled again.
std::optional<std::string> cachedCodeletLibrary(const std::string &cache, const std::string &key) {
  const std::optional<std::string> digest = readCacheFile(cache + "/" + key + ".library", kMaxCacheRecordBytes);
  if (!digest || !isSha256Hex(*digest)) return std::nullopt;
  std::optional<std::string> bytes = readCacheFile(cache + "/" + *digest + ".so", kMaxCachedLibraryBytes);
  if (!bytes || bytes->compare(0, 4, "\x7f" "ELF") != 0 || sha256Hex(*bytes) != *digest) return std::nullopt;
  return bytes;
}

// Stores a library compiled for `key` as cachedCodeletLibrary reads it: its bytes first, then the record.
void cacheCodeletLibrary(const std::string &cache, const std::string &key, const std::string &bytes) {
  const std::string digest = sha256Hex(bytes);
  if (publish(cache, cache + "/" + digest + ".so", bytes)) publish(cache, cache + "/" + key + ".library", digest);
}

std::optional<std::vector<std::string>> cachedDependencies(const std::string &cache, const std::string &sourceKey) {
  const std::optional<std::string> manifest = readCacheFile(cache + "/" + sourceKey + ".deps", kMaxCacheRecordBytes);
  if (!manifest) return std::nullopt;
  std::vector<std::string> files;
  std::istringstream in(*manifest);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) files.push_back(line);
  return files;
}

// A manifest <cache>/<sourceKey>.deps, one path a line.
void cacheDependencies(const std::string &cache, const std::string &sourceKey, const std::vector<std::string> &files) {
  std::string manifest;
  for (const std::string &file : files) manifest += file + "\n";
  publish(cache, cache + "/" + sourceKey + ".deps", manifest);
}

} // namespace poplar::detail
