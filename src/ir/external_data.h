// ir/external_data.h: ONNX external tensor data: files mapped once with mmap, tensors borrowed
// from the mapping.
//
// Layer: nxrt_ir, used by the ONNX loader only. An initializer (or a tensor attribute) with
// `data_location: EXTERNAL` names its bytes with `external_data` key/value pairs (ONNX IR spec,
// "External Tensor Data"):
//   location  file path relative to the model's folder (required)
//   offset    byte offset in the file (default 0)
//   length    number of bytes (default: the rest of the file); must equal the tensor's size
//   checksum  SHA-1 of the bytes; accepted and not verified
// Other keys are ignored. Each file is mapped once per load and shared by all its tensors; a
// tensor borrows from the mapping (keeping it alive) when the offset is aligned for its element
// type, and is copied otherwise.
//
// Confinement (as ONNX Runtime 1.30 does, "External data path validation failed"): a location is
// resolved to its real path, every symbolic link followed, and that path must lie inside the
// base folder's real path or inside one of the extra roots (the folder the model file really
// lives in, when the model path itself is a link, as in the Hugging Face cache layout). Only
// regular files are opened, and never in a way that can block: a named pipe, device or socket
// is refused before anything is read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {

// A whole file mapped privately (copy-on-write: writes through a borrowed tensor never reach the
// file). Unmapped when the last holder lets go. An empty file has data == nullptr and size 0.
struct MappedFile {
  std::filesystem::path path;
  std::byte* data = nullptr;
  size_t size = 0;

  // Opens without blocking (O_NONBLOCK, so a named pipe with no writer cannot hang the call) and
  // checks the file type on the open descriptor before reading. With `follow_symlinks` false a
  // path whose last component is a symbolic link is refused (O_NOFOLLOW).
  // Errors: kIoError naming the path (missing, unreadable, not a regular file, mmap failure).
  static Result<std::shared_ptr<MappedFile>> Open(const std::filesystem::path& file_path,
                                                  bool follow_symlinks = true);

  // Gives the whole pages within bytes [begin, end) back to the kernel (madvise MADV_DONTNEED):
  // they stop counting in the process's resident set, and reading them again faults them in from
  // the file. Only for pages never written through the mapping: such writes would be lost.
  void DropPages(size_t begin, size_t end) const;

  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
};

// Resolves the external data of the tensors of one model load.
class ExternalDataResolver {
 public:
  // `base_dir`: the folder `location`s are relative to. `extra_roots`: folders besides
  // `base_dir` that a location's real path may lie in.
  explicit ExternalDataResolver(std::filesystem::path base_dir,
                                std::vector<std::filesystem::path> extra_roots = {})
      : base_dir_(std::move(base_dir)), extra_roots_(std::move(extra_roots)) {}

  // The tensor `proto` (data_location EXTERNAL) as `dtype` with `shape`: borrowed from the
  // mapped file when its offset suits the dtype's alignment, else an owned copy.
  // Errors (kInvalidModel naming the location and the numbers; the caller names the tensor): no
  // or empty `location`, an absolute location or one that leaves the base folder through "..", a
  // location whose real path (symbolic links followed) lies outside the base folder and the extra
  // roots, a file that is not a regular file or cannot be mapped, offset/length that are not
  // non-negative integers, offset + length beyond the file size, a tensor whose byte size
  // overflows 64 bits, length different from the tensor's byte size, string tensors (not
  // storable externally).
  Result<Tensor> Load(const onnx::TensorProto& proto, DataType dtype, const Shape& shape);

  // Every file mapped so far, in the order first used.
  const std::vector<std::shared_ptr<const MappedFile>>& files() const { return order_; }

 private:
  Result<std::shared_ptr<const MappedFile>> Map(const std::string& location);

  std::filesystem::path base_dir_;
  std::vector<std::filesystem::path> extra_roots_;
  std::map<std::filesystem::path, std::shared_ptr<const MappedFile>> files_;
  std::vector<std::shared_ptr<const MappedFile>> order_;
};

}  // namespace nxrt::ir
