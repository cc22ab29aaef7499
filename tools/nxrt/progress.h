// tools/nxrt/progress.h: progress on stderr, drawn only when stderr is a terminal (isatty, TERM
// not "dumb"), on one line redrawn in place with '\r' and erased when done, so that output piped
// or redirected never holds it.
//
//   ProgressBar  counts with a bar, percentage and ETA (`test-onnx`, `bench`)
//   Spinner      a spinner with the elapsed time and a status line it asks for, once the work
//                took two seconds (a long `run`)
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace nxrt::cli {

// Whether progress is drawn: stderr is a terminal and TERM is not "dumb".
bool ProgressOnTerminal();

// "<label> [#########...............] 123/1072 11%  ETA 1m20s  <detail>", drawn by Update at
// most ten times a second (from the start: counted work shows its progress at once, and a bar
// that lasts less than a second is erased before anyone reads it).
class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // `done` of the total; `detail` (e.g. the test running) is shown after the counts.
  void Update(int64_t done, std::string_view detail = "");
  // Erases the line (before printing something else); the next Update draws it again.
  void Clear();

 private:
  void Draw(std::string_view detail);

  const bool enabled_;
  std::string label_;
  int64_t total_;
  int64_t done_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "| 3.2 s  <status>": from `delay` after construction, redrawn ten times a second by a thread
// of its own with what `status` returns, until destroyed (which erases it).
class Spinner {
 public:
  explicit Spinner(std::function<std::string()> status,
                   std::chrono::milliseconds delay = std::chrono::milliseconds(2000));
  ~Spinner();
  Spinner(const Spinner&) = delete;
  Spinner& operator=(const Spinner&) = delete;

 private:
  std::function<std::string()> status_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace nxrt::cli
