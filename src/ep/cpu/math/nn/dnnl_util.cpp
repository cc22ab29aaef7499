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

Status Sgemm(std::string_view what, bool transpose_a, bool transpose_b, int64_t m, int64_t n,
             int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
             float* c, int64_t ldc) {
  if (m == 0 || n == 0) return Status::Ok();
  const dnnl_status_t status = dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n,
                                          k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
  if (status != dnnl_success) {
    return MakeStatus(StatusCode::kRuntimeError, what, ": oneDNN sgemm failed (status ",
                      static_cast<int>(status), ") on [", m, "x", k, "] x [", k, "x", n, "]");
  }
  return Status::Ok();
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

dnnl::memory Rebind(const dnnl::memory& like, const dnnl::engine& engine) {
  if (!like) return {};
  return dnnl::memory(like.get_desc(), engine, like.get_data_handle());
}

int DnnlThreadsFor(int64_t macs, int max_threads) {
  const int64_t wanted = macs / kDnnlMacsPerThread;
  return static_cast<int>(std::clamp<int64_t>(wanted, 1, std::max(max_threads, 1)));
}

void ApplyClampKeepingNaN(const ClampKeepingNaN& clamp, float* y, int64_t n, int threads) {
  const ClampKeepingNaN c = clamp;
  // Comparisons that are false for NaN leave it in place; the loop vectorises to max/min with
  // NaN-keeping operand order.
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float v = c.scale * y[i] + c.shift;
      v = v < c.lo ? c.lo : v;
      v = v > c.hi ? c.hi : v;
      y[i] = v * c.out_scale + c.out_shift;
    }
  };
  // One thread per 64 Ki floats (a pass over them costs less than waking a thread below that).
  const int64_t parts = std::clamp<int64_t>(n >> 16, 1, std::max(threads, 1));
  if (parts == 1) {
    run(0, n);
    return;
  }
#pragma omp parallel for num_threads(static_cast<int>(parts))
  for (int64_t p = 0; p < parts; ++p) run(n * p / parts, n * (p + 1) / parts);
}

void SetDnnlThreads(int num_threads) { omp_set_num_threads(num_threads < 1 ? 1 : num_threads); }

int DnnlThreads() { return omp_get_max_threads(); }

}  // namespace nxrt::cpu::nn
