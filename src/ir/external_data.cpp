// ir/external_data.cpp: mapping external-data files and slicing tensors out of them (see
// ir/external_data.h).
//
// Layer: nxrt_ir. POSIX only (open, fstat, mmap).
#include "ir/external_data.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>

#include "ir/tensor_proto.h"

namespace nxrt::ir {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// A non-negative decimal integer filling all of `text`, or nullopt.
std::optional<uint64_t> ParseUnsigned(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// The caller names the tensor (initializer or attribute) in the context it adds.
Status TensorError(const std::string& message) {
  return Status(StatusCode::kInvalidModel, "external data: " + message);
}

// True when `path` is `root` or lies below it; both are real paths (no ".", "..", or links).
bool IsWithin(const std::filesystem::path& path, const std::filesystem::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // the empty last component of a root written with a final '/'
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

}  // namespace

Result<std::shared_ptr<MappedFile>> MappedFile::Open(const std::filesystem::path& file_path,
                                                     bool follow_symlinks) {
  // Appended, not built with operator+, which trips GCC 12's -Wrestrict false positive.
  std::string shown = "'";
  shown += file_path.string();
  shown += "'";
  // O_NONBLOCK: opening a named pipe for reading otherwise waits for a writer; the file type is
  // checked on the descriptor below, before any read.
  const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_symlinks ? 0 : O_NOFOLLOW);
  const int fd = ::open(file_path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP && !follow_symlinks) {
      return Status(StatusCode::kIoError, "cannot open " + shown +
                                              ": it became a symbolic link after it was resolved");
    }
    return Status(StatusCode::kIoError, "cannot open " + shown + ": " + ErrnoText(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status(StatusCode::kIoError, "cannot stat " + shown + ": " + ErrnoText(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISFIFO(st.st_mode)  ? " (a named pipe)"
                       : S_ISDIR(st.st_mode) ? " (a directory)"
                       : S_ISSOCK(st.st_mode) ? " (a socket)"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? " (a device)"
                                                                     : "";
    return Status(StatusCode::kIoError, shown + " is not a regular file" + kind);
  }
  auto file = std::make_shared<MappedFile>();
  file->path = file_path;
  file->size = static_cast<size_t>(st.st_size);
  if (file->size > 0) {
    // MAP_NORESERVE: the copy-on-write mapping is not charged against memory as a whole.
    void* addr = ::mmap(nullptr, file->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE,
                        fd, 0);
    if (addr == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return Status(StatusCode::kIoError, "cannot map " + shown + " (" +
                                              std::to_string(file->size) +
                                              " bytes): " + ErrnoText(err));
    }
    file->data = static_cast<std::byte*>(addr);
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  return file;
}

void MappedFile::DropPages(size_t begin, size_t end) const {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t first = (begin + page - 1) / page * page;
  const size_t last = std::min(end, size) / page * page;
  if (first < last) ::madvise(data + first, last - first, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (data != nullptr) ::munmap(data, size);
}

Result<std::shared_ptr<const MappedFile>> ExternalDataResolver::Map(const std::string& location) {
  const std::filesystem::path relative(location);
  if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory()) {
    return TensorError("location '" + location +
                                        "' is an absolute path; ONNX requires a path relative "
                                        "to the model's folder");
  }
  const std::filesystem::path normal = relative.lexically_normal();
  if (normal.empty() || *normal.begin() == "..") {
    return TensorError("location '" + location +
                                        "' leaves the model's folder; external data must lie "
                                        "inside it");
  }
  const std::filesystem::path full = base_dir_ / normal;
  if (auto it = files_.find(full); it != files_.end()) return it->second;

  // The real path, every link followed; it must stay inside the model's folder (or a root).
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(full, ec);
  if (ec) {
    return TensorError("location '" + location + "': cannot open '" + full.string() +
                       "': " + ec.message());
  }
  bool inside = false;
  std::string roots;
  std::vector<std::filesystem::path> candidates = {base_dir_};
  candidates.insert(candidates.end(), extra_roots_.begin(), extra_roots_.end());
  for (const std::filesystem::path& root : candidates) {
    const std::filesystem::path real_root =
        std::filesystem::canonical(root.empty() ? std::filesystem::path(".") : root, ec);
    if (ec) continue;
    if (!roots.empty()) roots += "' or '";
    roots += real_root.string();
    if (IsWithin(real, real_root)) inside = true;
  }
  if (!inside) {
    return TensorError("location '" + location + "' resolves to '" + real.string() +
                       "' (through a symbolic link), outside the model's folder '" + roots +
                       "'; external data must lie inside it: copy the file there");
  }
  Result<std::shared_ptr<MappedFile>> file = MappedFile::Open(real, /*follow_symlinks=*/false);
  if (!file.ok()) {
    return TensorError("location '" + location + "': " + file.status().message());
  }
  std::shared_ptr<const MappedFile> shared = std::move(file).value();
  files_.emplace(full, shared);
  order_.push_back(shared);
  return shared;
}

Result<Tensor> ExternalDataResolver::Load(const onnx::TensorProto& proto, DataType dtype,
                                          const Shape& shape) {
  if (dtype == DataType::kString) {
    return TensorError("string tensors cannot be stored as external data");
  }
  std::string location;
  std::optional<uint64_t> offset;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    const std::string& key = entry.key();
    if (key == "location") {
      location = entry.value();
    } else if (key == "offset" || key == "length") {
      std::optional<uint64_t> parsed = ParseUnsigned(entry.value());
      if (!parsed) {
        return TensorError("'" + key + "' is '" + entry.value() +
                                     "', expected a non-negative integer");
      }
      (key == "offset" ? offset : length) = parsed;
    }
  }
  if (location.empty()) return TensorError("no 'location' key");

  NXRT_ASSIGN_OR_RETURN(const int64_t count, ElementCount(shape));
  uint64_t expected = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), DataTypeBits(dtype), &expected)) {
    return TensorError(std::string(DataTypeName(dtype)) + ShapeToString(shape) + " (" +
                       std::to_string(count) + " elements of " +
                       std::to_string(DataTypeBits(dtype)) +
                       " bits) needs more than 2^64 bytes; no file can hold it");
  }
  expected = (expected + 7) / 8;
  NXRT_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, Map(location));
  const uint64_t start = offset.value_or(0);
  const std::string where = "file '" + location + "' (" + std::to_string(file->size) + " bytes)";
  if (start > file->size) {
    return TensorError("offset " + std::to_string(start) + " is beyond the end of " + where);
  }
  const uint64_t available = file->size - start;
  const uint64_t bytes = length.value_or(available);
  if (bytes > available) {
    return TensorError("offset " + std::to_string(start) + " + length " +
                                 std::to_string(bytes) + " is beyond the end of " + where);
  }
  if (bytes != expected) {
    return TensorError(std::string(length ? "length " : "the rest of the file, ") +
                                 std::to_string(bytes) + " bytes at offset " +
                                 std::to_string(start) + " in " + where + ", does not match " +
                                 std::string(DataTypeName(dtype)) + ShapeToString(shape) +
                                 ", which needs " + std::to_string(expected) + " bytes");
  }
  if (expected == 0) return Tensor::Allocate(dtype, shape);

  std::byte* begin = file->data + start;
  if (reinterpret_cast<uintptr_t>(begin) % ElementAlignment(dtype) == 0) {
    return Tensor::Borrow(dtype, shape, begin, file);
  }
  NXRT_ASSIGN_OR_RETURN(Tensor copy, Tensor::Allocate(dtype, shape));
  std::memcpy(copy.mutable_raw_data(), begin, bytes);
  return copy;
}

}  // namespace nxrt::ir
