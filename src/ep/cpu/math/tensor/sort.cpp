// ep/cpu/math/tensor/sort.cpp: see sort.h.
#include "ep/cpu/math/tensor/sort.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>

#include "core/cpu_features.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {
namespace {

// The total order of sort.h on one element type: -1, 0 or 1.
template <typename T>
int Order(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return a < b ? -1 : (b < a ? 1 : 0);
  } else {
    const auto x = ToAcc(a);
    const auto y = ToAcc(b);
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      const bool xn = std::isnan(x), yn = std::isnan(y);
      if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
    }
    return x < y ? -1 : (y < x ? 1 : 0);
  }
}

// The element types with an order: numeric, bool and string.
using OrderedTypes = math::Concat<math::NumericAndBoolTypes, math::StringTypes>;

}  // namespace

Result<TopKPlan> PrepareTopK(DataType dtype, std::span<const int64_t> shape, int64_t axis,
                             int64_t k, bool largest) {
  NXRT_RETURN_IF_ERROR(CheckShape("TopK", "input", shape));
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::NumericTypesBf16>(dtype, "TopK", [](auto) {}));
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "TopK: input is a scalar, expected rank >= 1");
  }
  NXRT_ASSIGN_OR_RETURN(const int64_t a, NormalizeAxis("TopK", axis, rank));
  TopKPlan plan;
  plan.dtype = dtype;
  plan.axis_dim = shape[a];
  if (k < 0 || k > plan.axis_dim) {
    return MakeStatus(StatusCode::kInvalidArgument, "TopK: k is ", k, ", expected a value in [0, ",
                      plan.axis_dim, "] (the size of axis ", a, " of input ", Str(shape), ")");
  }
  plan.k = k;
  plan.largest = largest;
  plan.outer = Product(shape.first(a));
  plan.inner = Product(shape.subspan(a + 1));
  plan.output_shape.assign(shape.begin(), shape.end());
  plan.output_shape[a] = k;
  return plan;
}

size_t TopKScratchBytes(const TopKPlan& plan) {
  return static_cast<size_t>(plan.k) * sizeof(int64_t);
}

namespace {

// Calls consider(a) for the elements a in [begin, end) of the contiguous float row x (whole
// blocks of 16) that may enter TopK's heap, whose worst element is worst(): with kLargest those
// above it or NaN, otherwise those below it (any when it is NaN); consider checks again. One
// AVX-512 compare per 16 elements, then only the set bits of its mask. Returns where the blocks
// end.
template <bool kLargest, typename Worst, typename Consider>
__attribute__((target("avx512f"))) int64_t ScanCandidatesAvx512(const float* x, int64_t begin,
                                                                 int64_t end, const Worst& worst,
                                                                 const Consider& consider) {
  int64_t a = begin;
  for (; a + 16 <= end; a += 16) {
    const __m512 v = _mm512_loadu_ps(x + a);
    const __m512 w = _mm512_set1_ps(worst());
    // NLE/NGE: above (below) worst, or unordered with it.
    uint32_t bits = _mm512_cmp_ps_mask(v, w, kLargest ? _CMP_NLE_UQ : _CMP_NGE_UQ);
    for (; bits != 0; bits &= bits - 1) consider(a + __builtin_ctz(bits));
  }
  return a;
}

}  // namespace

Status TopK(const TopKPlan& plan, const void* input, void* values, int64_t* indices,
            int64_t* scratch, int64_t row_begin, int64_t row_end) {
  return math::DispatchType<math::NumericTypesBf16>(plan.dtype, "TopK", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(input);
    T* out = static_cast<T*>(values);
    const std::span<int64_t> order(scratch, static_cast<size_t>(plan.k));
    for (int64_t row = row_begin; row < row_end; ++row) {
      const int64_t o = row / plan.inner;
      const int64_t i = row % plan.inner;
      const T* base = in + o * plan.axis_dim * plan.inner + i;
      const auto at = [&](int64_t a) -> const T& { return base[a * plan.inner]; };
      // Best first; ties keep the lower index first.
      const auto better = [&](int64_t x, int64_t y) {
        const int c = Order(at(x), at(y));
        if (c != 0) return plan.largest ? c > 0 : c < 0;
        return x < y;
      };
      // A heap of the k best so far, the worst on top. Most elements lose to that worst by a
      // plain compare of compute values (a NaN, or a NaN on top, takes the full comparison), so
      // the Order comparison runs only for candidates; a contiguous axis is scanned for them in
      // blocks of 16 (float on AVX-512: one compare mask per block, then its set bits only), and
      // a block without one is skipped whole. A later element that ties the worst loses to its
      // lower index.
      const auto first = order.begin();
      const auto last = first + plan.k;
      std::iota(first, last, 0);
      std::make_heap(first, last, better);
      if (plan.k > 0) {
        using C = std::remove_cvref_t<decltype(math::Load(at(0)))>;
        C worst = math::Load(at(order[0]));
        const auto maybe = [&](C v) {
          return plan.largest ? (v > worst) | (v != v) : (v < worst) | (worst != worst);
        };
        // a replaces the top (the worst) and sinks below every child worse than it: one sift
        // where pop_heap and push_heap take two.
        const auto consider = [&](int64_t a) {
          if (!maybe(math::Load(at(a))) || !better(a, order[0])) return;
          int64_t h = 0;
          for (;;) {
            int64_t child = 2 * h + 1;
            if (child >= plan.k) break;
            if (child + 1 < plan.k && better(order[child], order[child + 1])) ++child;
            if (!better(a, order[child])) break;
            order[h] = order[child];
            h = child;
          }
          order[h] = a;
          worst = math::Load(at(order[0]));
        };
        int64_t a = plan.k;
        if constexpr (std::is_same_v<T, float>) {
          if (plan.inner == 1 && CpuHasAvx512()) {
            const auto current = [&worst] { return worst; };
            a = plan.largest
                    ? ScanCandidatesAvx512<true>(base, a, plan.axis_dim, current, consider)
                    : ScanCandidatesAvx512<false>(base, a, plan.axis_dim, current, consider);
          }
        }
        constexpr int64_t kBlock = 16;
        if (plan.inner == 1) {
          for (; a + kBlock <= plan.axis_dim; a += kBlock) {
            int any = 0;
            for (int64_t j = 0; j < kBlock; ++j) {
              any |= static_cast<int>(maybe(math::Load(base[a + j])));
            }
            if (any == 0) continue;
            for (int64_t j = 0; j < kBlock; ++j) consider(a + j);
          }
        }
        for (; a < plan.axis_dim; ++a) consider(a);
      }
      std::sort_heap(first, last, better);
      const int64_t out_base = o * plan.k * plan.inner + i;
      for (int64_t j = 0; j < plan.k; ++j) {
        out[out_base + j * plan.inner] = at(order[j]);
        indices[out_base + j * plan.inner] = order[j];
      }
    }
    return Status::Ok();
  });
}

Result<UniquePlan> PrepareUnique(DataType dtype, std::span<const int64_t> shape, bool has_axis,
                                 int64_t axis, bool sorted) {
  NXRT_RETURN_IF_ERROR(CheckShape("Unique", "input", shape));
  NXRT_RETURN_IF_ERROR(math::DispatchType<OrderedTypes>(dtype, "Unique", [](auto) {}));
  UniquePlan plan;
  plan.dtype = dtype;
  plan.input_shape.assign(shape.begin(), shape.end());
  plan.has_axis = has_axis;
  plan.sorted = sorted;
  if (has_axis) {
    NXRT_ASSIGN_OR_RETURN(plan.axis,
                          NormalizeAxis("Unique", axis, static_cast<int64_t>(shape.size())));
    plan.outer = Product(shape.first(plan.axis));
    plan.items = shape[plan.axis];
    plan.inner = Product(shape.subspan(plan.axis + 1));
  } else {
    plan.items = Product(shape);
  }
  return plan;
}

Result<UniqueResult> FindUnique(const UniquePlan& plan, const void* input) {
  UniqueResult result;
  NXRT_RETURN_IF_ERROR(math::DispatchType<OrderedTypes>(plan.dtype, "Unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(input);
    // Items compare element by element in row-major order: outer index first, then inner.
    const auto compare = [&](int64_t x, int64_t y) {
      for (int64_t o = 0; o < plan.outer; ++o) {
        const T* row = in + o * plan.items * plan.inner;
        for (int64_t i = 0; i < plan.inner; ++i) {
          const int c = Order(row[x * plan.inner + i], row[y * plan.inner + i]);
          if (c != 0) return c;
        }
      }
      return 0;
    };
    // Stable sort: each run of equal items starts with its first occurrence.
    std::vector<int64_t> order(static_cast<size_t>(plan.items));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return compare(x, y) < 0; });
    std::vector<int64_t> group_of(order.size());  // sorted group of each item
    for (size_t s = 0; s < order.size(); ++s) {
      if (s == 0 || compare(order[s - 1], order[s]) != 0) {
        result.first.push_back(order[s]);
        result.counts.push_back(0);
      }
      ++result.counts.back();
      group_of[order[s]] = static_cast<int64_t>(result.first.size()) - 1;
    }
    // Output position of each group: the sorted order, or the order of first occurrence.
    std::vector<int64_t> position(result.first.size());
    std::iota(position.begin(), position.end(), 0);
    if (!plan.sorted) {
      std::vector<int64_t> by_first(result.first.size());
      std::iota(by_first.begin(), by_first.end(), 0);
      std::sort(by_first.begin(), by_first.end(),
                [&](int64_t x, int64_t y) { return result.first[x] < result.first[y]; });
      std::vector<int64_t> first(result.first.size()), counts(result.first.size());
      for (size_t p = 0; p < by_first.size(); ++p) {
        position[by_first[p]] = static_cast<int64_t>(p);
        first[p] = result.first[by_first[p]];
        counts[p] = result.counts[by_first[p]];
      }
      result.first = std::move(first);
      result.counts = std::move(counts);
    }
    result.inverse.resize(order.size());
    for (size_t item = 0; item < order.size(); ++item) {
      result.inverse[item] = position[group_of[item]];
    }
    return Status::Ok();
  }));
  return result;
}

Shape UniqueOutputShape(const UniquePlan& plan, const UniqueResult& result) {
  const int64_t count = static_cast<int64_t>(result.first.size());
  if (!plan.has_axis) return {count};
  Shape shape = plan.input_shape;
  shape[plan.axis] = count;
  return shape;
}

void GatherUnique(const UniquePlan& plan, const UniqueResult& result, const void* input,
                  void* output) {
  const size_t bytes = DataTypeSize(plan.dtype);
  const int64_t count = static_cast<int64_t>(result.first.size());
  for (int64_t o = 0; o < plan.outer; ++o) {
    for (int64_t u = 0; u < count; ++u) {
      const int64_t from = (o * plan.items + result.first[u]) * plan.inner;
      const int64_t to = (o * count + u) * plan.inner;
      CopyElements(plan.dtype, static_cast<const char*>(input) + from * bytes,
                   static_cast<char*>(output) + to * bytes, plan.inner);
    }
  }
}

}  // namespace nxrt::cpu::nn
