// runtime/arena.h: the memory of one plan instance: one 64-byte-aligned block in which each
// buffer of a run (an intermediate tensor, a kernel's workspace) has its planned offset.
//
// Layer: nxrt_runtime. The executor (runtime/executor.h) numbers the buffers a run may place,
// asks the arena for each one's bytes at the size the run needs (Place), and after a run that
// needed a size the layout lacks, rebuilds the layout from the sizes just seen and the buffers'
// step ranges (Rebuild, through runtime/memory_planner.h). A buffer the layout does not have at
// that size gets no bytes here; the caller allocates it on its own for that run. Since every
// buffer in the arena is exactly the size it was planned at, two buffers whose step ranges
// intersect never share a byte, in steady state and in a run with new shapes alike.
// The arena knows nothing of graphs, values or kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "nxrt/status.h"

namespace nxrt::runtime {

// How a buffer seen in the last run is to be laid out.
struct ArenaUse {
  int32_t first_step = 0;  // the buffer must stay intact from this step to `last_step`
  int32_t last_step = 0;
  // The buffer whose bytes this one takes over (an in-place output), or itself. An owner's step
  // range must already cover the buffers that share it.
  size_t owner = 0;
};

class Arena {
 public:
  // `buffers`: how many buffers a run may place, numbered 0..buffers-1.
  explicit Arena(size_t buffers);

  // Starts a run: forgets the sizes of the run before.
  void BeginRun();
  // Buffer `b` needs `bytes` (>= 0) in this run. Returns its bytes in the arena when the layout
  // holds `b` at exactly that size, else nullptr (and the layout is stale).
  std::byte* Place(size_t b, int64_t bytes) {
    seen_[b] = bytes;
    if (bytes != planned_[b]) {
      stale_ = true;
      return nullptr;
    }
    return base_ != nullptr ? base_.get() + offset_[b] : nullptr;
  }
  // The size Place was given for `b` in this run, or -1.
  int64_t seen(size_t b) const { return seen_[b]; }
  // True when `p` is where buffer `b` starts in the arena.
  bool IsAt(size_t b, const void* p) const {
    return base_ != nullptr && offset_[b] >= 0 && p == base_.get() + offset_[b];
  }

  // The layout lacks a size placed in this run, or was invalidated.
  bool stale() const { return stale_; }
  // Makes the next Rebuild happen (e.g. a kernel changed its in-place offers).
  void Invalidate() { stale_ = true; }
  // Lays out anew every buffer placed in this run; `uses` has one entry per buffer (entries of
  // buffers not placed are ignored). Frees the old block first, so no view of it may be used
  // afterwards. When the new block cannot be allocated, the arena holds nothing and stays stale,
  // so runs go on with buffers of their own.
  void Rebuild(std::span<const ArenaUse> uses);

  // The block and its size in bytes (null and 0 before the first Rebuild).
  const std::byte* data() const { return base_.get(); }
  int64_t size() const { return size_; }

 private:
  std::shared_ptr<std::byte> base_;
  int64_t size_ = 0;
  std::vector<int64_t> offset_;   // per buffer; -1: not in the layout
  std::vector<int64_t> planned_;  // per buffer: the size it was laid out at, or -1
  std::vector<int64_t> seen_;     // per buffer: the size placed in this run, or -1
  bool stale_ = true;
};

// A 64-byte-aligned, uninitialised host buffer of `bytes` bytes (nullptr for 0).
// Errors: kOutOfMemory.
Result<std::shared_ptr<std::byte>> AlignedBuffer(size_t bytes);

}  // namespace nxrt::runtime
