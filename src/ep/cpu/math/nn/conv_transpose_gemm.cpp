// ep/cpu/math/nn/conv_transpose_gemm.cpp: see conv_transpose_gemm.h. Layer: nxrt_cpu_math.
#include "ep/cpu/math/nn/conv_transpose_gemm.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <utility>

#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn/dnnl_util.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::nn {
namespace {

// Floats of one thread's column buffer (512 KiB): with X it stays in the L2 cache between the
// GEMM that writes it and the col2im that reads it. On the 64 -> 32 channel 4x4 case of the file
// comment, blocks of 2 to 4 channels took 1.85 ms, blocks of 8 and 16 1.92 to 1.96 ms.
constexpr int64_t kColumnBlockFloats = int64_t{1} << 17;
// But at least this many GEMM rows (block channels times taps) when the group has the channels:
// oneDNN's sgemm wastes most of its register tile on fewer (K = 24, N = 19200, one thread,
// loaded: rows of 4 ran at 34 GFLOPS, rows of 32 at 79).
constexpr int64_t kMinGemmRows = 32;

// The sizes of a plan, as the GEMM and the col2im see them.
struct Sizes {
  int64_t cg = 0, mg = 0;    // input and output channels per group
  int64_t taps = 0;          // kernel taps (product of the kernel dims)
  int64_t in_size = 0;       // input spatial elements
  int64_t out_size = 0;      // output spatial elements
  int64_t block = 0;         // output channels per block
  int64_t blocks = 0;        // blocks per (image, group)
  int64_t phases = 0;        // stride of the last spatial dim
  int64_t phase_length = 0;  // ceil(output's last dim / phases)
  size_t column_bytes = 0;   // per thread, 64-byte aligned
  size_t phase_bytes = 0;    // per thread, 64-byte aligned
};

Sizes SizesOf(const ConvPlan& plan) {
  const WindowGeometry& geo = plan.geometry;
  Sizes z;
  z.cg = plan.in_channels / plan.group;
  z.mg = plan.out_channels / plan.group;
  z.taps = Product(geo.kernel);
  z.in_size = Product(plan.input_spatial);
  z.out_size = Product(geo.output);
  const int64_t channel_columns = std::max<int64_t>(z.taps * z.in_size, 1);
  const int64_t wanted = std::max(kColumnBlockFloats / channel_columns,
                                  (kMinGemmRows + z.taps - 1) / std::max<int64_t>(z.taps, 1));
  z.block = std::clamp<int64_t>(wanted, 1, std::max<int64_t>(z.mg, 1));
  z.blocks = (z.mg + z.block - 1) / z.block;
  z.phases = geo.strides.back();
  z.phase_length = (geo.output.back() + z.phases - 1) / z.phases;
  z.column_bytes = Align64(z.block * channel_columns * sizeof(float));
  z.phase_bytes = Align64(z.phases * z.phase_length * sizeof(float));
  return z;
}

// Where tap kw of the last spatial dim lands: output columns s * j + phase read input column
// j + shift, for j in [begin, end).
struct LastDimTap {
  int64_t phase = 0, shift = 0, begin = 0, end = 0;
};

LastDimTap LastDimTapOf(const ConvPlan& plan, const Sizes& z, int64_t kw) {
  const WindowGeometry& geo = plan.geometry;
  const int64_t s = z.phases, d = geo.dilations.back(), pad = geo.pads_begin.back();
  const int64_t in = plan.input_spatial.back(), out = geo.output.back();
  // Output column o = s * i - pad + kw * d of input column i.
  LastDimTap t;
  t.phase = ((kw * d - pad) % s + s) % s;
  t.shift = (t.phase + pad - kw * d) / s;  // exact: a multiple of s
  const int64_t length = t.phase < out ? (out - t.phase + s - 1) / s : 0;
  t.begin = std::max<int64_t>(0, -t.shift);
  t.end = std::max(t.begin, std::min(length, in - t.shift));
  return t;
}

// Y's rows of one output channel from its columns `col` ([taps, in_size]): see the file comment.
// `phase` holds z.phases * z.phase_length floats.
void Col2ImChannel(const ConvPlan& plan, const Sizes& z, const float* col, float bias, float* y,
                   float* phase) {
  const WindowGeometry& geo = plan.geometry;
  const size_t outer = plan.input_spatial.size() - 1;  // spatial dims before the last
  const int64_t in_row = plan.input_spatial.back(), out_row = geo.output.back();
  const int64_t kernel_row = geo.kernel.back();
  const int64_t rows = z.out_size / std::max<int64_t>(out_row, 1);
  const int64_t outer_taps = z.taps / kernel_row;
  const int64_t s = z.phases;
  // The output row's outer coordinates and an outer kernel tap's (UseGemmConvTranspose: at
  // most 3 spatial dims).
  std::array<int64_t, 2> oc = {0, 0}, kc = {0, 0};
  for (int64_t row = 0; row < rows; ++row) {
    float* y_row = y + row * out_row;
    // Stride 1 sums into the row itself; otherwise into the phase vectors.
    float* acc = s == 1 ? y_row : phase;
    std::fill(acc, acc + s * z.phase_length, bias);
    std::fill(kc.begin(), kc.end(), 0);
    for (int64_t kt = 0; kt < outer_taps; ++kt) {
      int64_t in_index = 0;
      bool valid = true;
      for (size_t a = 0; a < outer && valid; ++a) {
        const int64_t num = oc[a] + geo.pads_begin[a] - kc[a] * geo.dilations[a];
        valid = num >= 0 && num % geo.strides[a] == 0 &&
                num / geo.strides[a] < plan.input_spatial[a];
        in_index = in_index * plan.input_spatial[a] + num / geo.strides[a];
      }
      if (valid) {
        const float* taps = col + kt * kernel_row * z.in_size + in_index * in_row;
        for (int64_t kw = 0; kw < kernel_row; ++kw) {
          const LastDimTap t = LastDimTapOf(plan, z, kw);
          const float* __restrict c = taps + kw * z.in_size + t.shift;
          float* __restrict a = acc + t.phase * z.phase_length;
          for (int64_t j = t.begin; j < t.end; ++j) a[j] += c[j];
        }
      }
      for (size_t a = outer; a-- > 0;) {
        if (++kc[a] < geo.kernel[a]) break;
        kc[a] = 0;
      }
    }
    if (s == 2) {
      const float* __restrict even = phase;
      const float* __restrict odd = phase + z.phase_length;
      const int64_t pairs = out_row / 2;
      for (int64_t j = 0; j < pairs; ++j) {
        y_row[2 * j] = even[j];
        y_row[2 * j + 1] = odd[j];
      }
      if (out_row % 2 != 0) y_row[out_row - 1] = even[pairs];
    } else if (s > 2) {
      for (int64_t r = 0; r < s; ++r) {
        const float* p = phase + r * z.phase_length;
        for (int64_t j = 0; s * j + r < out_row; ++j) y_row[s * j + r] = p[j];
      }
    }
    for (size_t a = outer; a-- > 0;) {
      if (++oc[a] < geo.output[a]) break;
      oc[a] = 0;
    }
  }
}

}  // namespace

bool UseGemmConvTranspose(const ConvPlan& plan) {
  const ConvPostOps& po = plan.post_ops;
  const bool strided = std::any_of(plan.geometry.strides.begin(), plan.geometry.strides.end(),
                                   [](int64_t s) { return s > 1; });
  return plan.transpose && plan.dtype == DataType::kFloat && !po.sum &&
         po.activation == ConvActivation::kNone && !po.has_output_affine() && strided &&
         !plan.input_spatial.empty() && plan.input_spatial.size() <= 3 &&
         Product(plan.output_shape) > 0 &&
         Product(plan.input_spatial) > 0 && plan.in_channels > 0;
}

size_t GemmConvTransposeWorkspace(const ConvPlan& plan) {
  const Sizes z = SizesOf(plan);
  return static_cast<size_t>(std::max(plan.threads, 1)) * (z.column_bytes + z.phase_bytes);
}

Status GemmConvTranspose(const ConvPlan& plan, const ConvBuffers& io) {
  const Sizes z = SizesOf(plan);
  const auto* x = static_cast<const float*>(io.x);
  const auto* w = static_cast<const float*>(io.w);
  const auto* b = plan.has_bias ? static_cast<const float*>(io.b) : nullptr;
  auto* y = static_cast<float*>(io.y);
  const int64_t items = plan.batch * plan.group * z.blocks;
  const int threads = static_cast<int>(std::clamp<int64_t>(items, 1, std::max(plan.threads, 1)));
  // Item = (image n, group g, block of output channels); `t` the thread whose buffers it uses.
  auto run = [&](int64_t item, int t) -> Status {
    const int64_t n = item / (plan.group * z.blocks), g = item / z.blocks % plan.group;
    const int64_t m0 = item % z.blocks * z.block, mb = std::min(z.block, z.mg - m0);
    std::byte* ws =
        io.workspace.data() + static_cast<size_t>(t) * (z.column_bytes + z.phase_bytes);
    auto* col = reinterpret_cast<float*>(ws);
    auto* phase = reinterpret_cast<float*>(ws + z.column_bytes);
    // col [mb * taps, in_size] = W[g Cg .. + Cg, m0 .. + mb, taps]^T X[n, g Cg .. + Cg].
    NXRT_RETURN_IF_ERROR(Sgemm("ConvTranspose", true, false, mb * z.taps, z.in_size, z.cg, 1.0f,
                               w + (g * z.cg * z.mg + m0) * z.taps, z.mg * z.taps,
                               x + (n * plan.in_channels + g * z.cg) * z.in_size, z.in_size, col,
                               z.in_size));
    math::CallWidest([&] {
      for (int64_t i = 0; i < mb; ++i) {
        const int64_t m = g * z.mg + m0 + i;
        Col2ImChannel(plan, z, col + i * z.taps * z.in_size, b != nullptr ? b[m] : 0.0f,
                      y + (n * plan.out_channels + m) * z.out_size, phase);
      }
    });
    return Status::Ok();
  };
  if (threads == 1) {
    SetDnnlThreads(1);
    for (int64_t item = 0; item < items; ++item) NXRT_RETURN_IF_ERROR(run(item, 0));
    return Status::Ok();
  }
  // Inside the parallel region oneDNN's sgemm runs on its calling thread. Compute allocates
  // nothing: the first error (Status is one null pointer when ok) is kept under a lock.
  Status first_error;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t item = 0; item < items; ++item) {
    Status status = run(item, omp_get_thread_num());
    if (!status.ok()) {
#pragma omp critical(nxrt_conv_transpose_gemm)
      if (first_error.ok()) first_error = std::move(status);
    }
  }
  return first_error;
}

}  // namespace nxrt::cpu::nn
