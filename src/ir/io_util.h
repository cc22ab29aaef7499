// ir/io_util.h: small helpers shared by the file readers and writers of ir/tensor_io.h (.pb in
// tensor_io.cpp, .npy/.npz in npy_io.cpp): whole-file reads and writes with errors that name the
// file, allocation guards, byte swapping.
//
// Layer: nxrt_ir, internal to the tensor I/O files.
#pragma once

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

// The whole file. Errors: kIoError naming the file and the system error.
inline Result<std::string> ReadFileBytes(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return MakeStatus(StatusCode::kIoError, FileLabel(path),
                      ": cannot open: ", std::strerror(errno));
  }
  std::string bytes;
  char chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) bytes.append(chunk, n);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) {
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
