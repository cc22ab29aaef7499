// ir/io_util.h: small helpers shared by the file readers and writers of ir/tensor_io.h (.pb in
// tensor_io.cpp, .npy/.npz in npy_io.cpp): whole-file reads (regular files only) and writes with errors that name the
// file, allocation guards, byte swapping.
//
// Layer: nxrt_ir, internal to the tensor I/O files.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::ir {

// "file '<path>'": the prefix of every error about a file.
inline std::string FileLabel(const std::filesystem::path& path) {
  return "file '" + path.string() + "'";
}

// The whole file. Only regular files are read: the file is opened without blocking and its type
// checked first, so a named pipe (or a device) given as a tensor file cannot hang the reader.
// Errors: kIoError naming the file and the system error, or saying it is not a regular file.
inline Result<std::string> ReadFileBytes(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return MakeStatus(StatusCode::kIoError, FileLabel(path),
                      ": cannot open: ", std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return MakeStatus(StatusCode::kIoError, FileLabel(path), ": cannot stat: ",
                      std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeStatus(StatusCode::kIoError, FileLabel(path), ": not a regular file",
                      S_ISFIFO(st.st_mode) ? " (a named pipe)" : "");
  }
  std::string bytes;
  char chunk[1 << 16];
  ssize_t n = 0;
  while ((n = ::read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) bytes.append(chunk, static_cast<size_t>(n));
  }
  const int error = errno;
  ::close(fd);
  if (n < 0) {
    return MakeStatus(StatusCode::kIoError, FileLabel(path), ": read failed after ", bytes.size(),
                      " bytes: ", std::strerror(error));
  }
  return bytes;
}

// Creates or truncates `path` and writes `bytes`. Errors: kIoError naming the file.
inline Status WriteFileBytes(const std::filesystem::path& path, std::string_view bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return MakeStatus(StatusCode::kIoError, FileLabel(path),
                      ": cannot create: ", std::strerror(errno));
  }
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  const int error = errno;
  const bool closed = std::fclose(file) == 0;
  if (written != bytes.size() || !closed) {
    return MakeStatus(StatusCode::kIoError, FileLabel(path), ": wrote ", written, " of ",
                      bytes.size(), " bytes: ", std::strerror(error));
  }
  return Status::Ok();
}

// Reverses the bytes of every element (each half of a complex number on its own).
inline void SwapElements(Tensor* t) {
  const size_t unit = t->dtype() == DataType::kComplex64    ? 4
                      : t->dtype() == DataType::kComplex128 ? 8
                                                            : DataTypeSize(t->dtype());
  auto* p = static_cast<std::byte*>(t->mutable_raw_data());
  for (size_t i = 0; i + unit <= t->byte_size(); i += unit) std::reverse(p + i, p + i + unit);
}

// Runs `fn` (returning Status or Result), turning allocation failures into kOutOfMemory.
template <typename Fn>
auto GuardAllocation(std::string_view what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return MakeStatus(StatusCode::kOutOfMemory, what, ": out of memory");
  } catch (const std::length_error&) {
    return MakeStatus(StatusCode::kOutOfMemory, what, ": a declared size is too large to hold");
  }
}

// Prefixes the error of `r` with `what`.
template <typename T>
Result<T> InContext(Result<T> r, std::string_view what) {
  if (!r.ok()) return r.status().WithContext(what);
  return r;
}

}  // namespace nxrt::ir
