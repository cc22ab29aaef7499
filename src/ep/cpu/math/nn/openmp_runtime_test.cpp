// ep/cpu/math/nn/openmp_runtime_test.cpp: the OpenMP entry points oneDNN and nxrt call resolve to
// LLVM's libomp (top-level CMakeLists.txt), even though Debian's libdnnl pulls libgomp in: if
// libgomp won, the pool would pay its slower regions, and a mix of the two would run two teams.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <string>

#include "ep/cpu/math/nn/matmul.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

// The file of the library whose definition of `symbol` the dynamic linker binds first.
std::string Provider(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

TEST(OpenMpRuntime, OneDnnsEntryPointsResolveToLlvmsLibomp) {
  // A float MatMul makes sure libdnnl (and with it libgomp) is loaded and initialised: one row
  // times a B that is not constant, which oneDNN runs on every CPU (several rows would run on
  // nxrt's own kernel on an AVX2 CPU without AVX-512, matmul.h).
  const int64_t a_shape[] = {1, 8}, b_shape[] = {8, 8};
  NXRT_ASSERT_OK_AND_ASSIGN(MatMulPlan plan, PrepareMatMul(DataType::kFloat, a_shape, b_shape));
  ASSERT_NE(plan.dnnl, nullptr);
  for (const char* symbol : {"GOMP_parallel", "GOMP_barrier", "omp_get_max_threads",
                             "omp_get_num_threads", "omp_get_thread_num", "omp_in_parallel"}) {
    EXPECT_NE(Provider(symbol).find("libomp"), std::string::npos)
        << symbol << " resolves to '" << Provider(symbol) << "'";
  }
}

}  // namespace
}  // namespace nxrt::cpu::nn
