// tools/nxrt/graphviz.cpp: see graphviz.h.
#include "graphviz.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace nxrt::cli {
namespace {

// Reads `fd` to its end.
std::string ReadAll(int fd) {
  std::string data;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  return data;
}

}  // namespace

Result<std::string> DotToSvg(const std::string& dot_text) {
  // The DOT text goes through a file, so that `dot` reading it and writing the SVG cannot block
  // on full pipes.
  char input[] = "/tmp/nxrt_claims_XXXXXX";
  const int input_fd = mkstemp(input);
  if (input_fd < 0) return Status(StatusCode::kIoError, "cannot make a temporary file in /tmp");
  close(input_fd);
  {
    std::ofstream file(input, std::ios::binary);
    file << dot_text;
  }
  char errors[] = "/tmp/nxrt_claims_err_XXXXXX";
  const int error_fd = mkstemp(errors);
  int out[2];
  if (error_fd < 0 || pipe(out) != 0) {
    std::filesystem::remove(input);
    if (error_fd >= 0) std::filesystem::remove(errors);
    return Status(StatusCode::kIoError, "cannot make a pipe or a temporary file for dot");
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(error_fd, STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    execlp("dot", "dot", "-Tsvg", input, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string svg = pid > 0 ? ReadAll(out[0]) : "";
  close(out[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  lseek(error_fd, 0, SEEK_SET);
  std::string message = ReadAll(error_fd);
  close(error_fd);
  std::filesystem::remove(input);
  std::filesystem::remove(errors);
  if (pid < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
    return Status(StatusCode::kNotImplemented,
                  "--format svg runs Graphviz's `dot`, which was not found on PATH; install it "
                  "(Debian: apt-get install graphviz) or use --format dot");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return MakeStatus(StatusCode::kRuntimeError, "Graphviz's dot failed: ", message);
  }
  return svg;
}

}  // namespace nxrt::cli
