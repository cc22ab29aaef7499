// tools/nxrt/progress.cpp: see progress.h.
#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nxrt::cli {
namespace {

// Characters a line may use before the terminal would wrap it.
constexpr size_t kLineWidth = 100;

// "42 s", "1m20s", "2h05m".
std::string Duration(double seconds) {
  char text[32];
  const long s = static_cast<long>(seconds + 0.5);
  if (s < 60) {
    std::snprintf(text, sizeof text, "%ld s", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s / 60 % 60);
  }
  return text;
}

// Writes `line` over the current stderr line, cut to the line width.
void Overwrite(std::string line) {
  if (line.size() > kLineWidth) line.resize(kLineWidth);
  line = "\r\033[K" + line;
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void Erase() {
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

}  // namespace

bool ProgressOnTerminal() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) == 1 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

ProgressBar::ProgressBar(std::string label, int64_t total)
    : enabled_(ProgressOnTerminal()),
      label_(std::move(label)),
      total_(total),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { Clear(); }

void ProgressBar::Update(int64_t done, std::string_view detail) {
  done_ = done;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done_ < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  Draw(detail);
}

void ProgressBar::Draw(std::string_view detail) {
  constexpr int kWidth = 24;
  const double fraction =
      total_ > 0 ? std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_)) : 0;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string line = label_ + " [" + std::string(static_cast<size_t>(filled), '#') +
                     std::string(static_cast<size_t>(kWidth - filled), '.') + "] " +
                     std::to_string(done_) + "/" + std::to_string(total_) + " " +
                     std::to_string(static_cast<int>(fraction * 100)) + "%";
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (done_ > 0 && done_ < total_) {
    line += "  ETA " + Duration(elapsed * static_cast<double>(total_ - done_) /
                                static_cast<double>(done_));
  }
  if (!detail.empty()) line += "  " + std::string(detail);
  Overwrite(std::move(line));
  drawn_ = true;
}

void ProgressBar::Clear() {
  if (!drawn_) return;
  Erase();
  drawn_ = false;
}

Spinner::Spinner(std::function<std::string()> status, std::chrono::milliseconds delay)
    : status_(std::move(status)) {
  if (!ProgressOnTerminal()) return;
  thread_ = std::thread([this, delay] {
    const auto start = std::chrono::steady_clock::now();
    static constexpr char kFrames[] = {'|', '/', '-', '\\'};
    bool drawn = false;
    std::unique_lock<std::mutex> lock(mutex_);
    for (size_t frame = 0;; ++frame) {
      // Woken at once by the destructor, so a short run does not wait for the next frame.
      if (wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) break;
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed * 1000 < static_cast<double>(delay.count())) continue;
      char head[32];
      std::snprintf(head, sizeof head, "%c %.1f s  ", kFrames[frame % 4], elapsed);
      Overwrite(head + status_());
      drawn = true;
    }
    if (drawn) Erase();
  });
}

Spinner::~Spinner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace nxrt::cli
