// ep/cpu/math/nn/dnnl_util.cpp: oneDNN engine, streams, threads, errors, version (nxrt_cpu_math).
#include "ep/cpu/math/nn/dnnl_util.h"

#include <omp.h>

#include <algorithm>
#include <memory>

#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn/dnnl_version.h"

namespace nxrt::cpu::nn {

Status DnnlErrorStatus(std::string_view what, const dnnl::error& e) {
  const StatusCode code =
      e.status == dnnl_unimplemented ? StatusCode::kUnsupported : StatusCode::kRuntimeError;
  return MakeStatus(code, what, ": oneDNN failed: ", e.what(), " (dnnl status ",
                    static_cast<int>(e.status), ")");
}

std::string DnnlVersion() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " (commit " + v->hash + ")";
}

Result<dnnl::engine> DnnlEngine() {
  // Function-local statics are initialised once, thread-safely; a failure is kept and reported.
  static const auto* const holder = [] {
    auto* h = new std::pair<dnnl::engine, Status>();
    try {
      h->first = dnnl::engine(dnnl::engine::kind::cpu, 0);
    } catch (const dnnl::error& e) {
      h->second = DnnlErrorStatus("creating the oneDNN CPU engine", e);
    }
    return h;
  }();
  if (!holder->second.ok()) return holder->second;
  return holder->first;
}

Result<dnnl::stream*> DnnlStream() {
  thread_local std::unique_ptr<dnnl::stream> stream;
  if (stream == nullptr) {
    NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
    try {
      stream = std::make_unique<dnnl::stream>(engine);
    } catch (const dnnl::error& e) {
      return DnnlErrorStatus("creating a oneDNN stream", e);
    }
  }
  return stream.get();
}

int DnnlThreadsFor(int64_t macs, int max_threads) {
  const int64_t wanted = macs / kDnnlMacsPerThread;
  return static_cast<int>(std::clamp<int64_t>(wanted, 1, std::max(max_threads, 1)));
}

void SetDnnlThreads(int num_threads) { omp_set_num_threads(num_threads < 1 ? 1 : num_threads); }

int DnnlThreads() { return omp_get_max_threads(); }

}  // namespace nxrt::cpu::nn
