// core/thread_pool_test.cpp: ParallelFor covers every index exactly once, from one or many callers.
#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace nxrt {
namespace {

void ExpectEachIndexOnce(ThreadPool& pool, int64_t n, int64_t min_chunk) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  pool.ParallelFor(n, min_chunk, [&](int64_t b, int64_t e) {
    EXPECT_LT(b, e);
    for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
}

TEST(ThreadPool, CoversEveryIndexOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (int64_t n : {0, 1, 7, 64, 1000, 100003}) {
      for (int64_t chunk : {1, 16, 5000}) ExpectEachIndexOnce(pool, n, chunk);
    }
  }
}

TEST(ThreadPool, SumsMatchASerialSum) {
  ThreadPool pool(3);
  std::vector<int64_t> v(1 << 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i * i % 1009);
  int64_t serial = 0;
  for (int64_t x : v) serial += x;
  std::atomic<int64_t> parallel{0};
  pool.ParallelFor(static_cast<int64_t>(v.size()), 128, [&](int64_t b, int64_t e) {
    int64_t s = 0;
    for (int64_t i = b; i < e; ++i) s += v[i];
    parallel += s;
  });
  EXPECT_EQ(parallel.load(), serial);
}

TEST(ThreadPool, ConcurrentCallersEachGetTheirWholeRange) {
  ThreadPool pool(2);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&pool] {
      for (int round = 0; round < 200; ++round) ExpectEachIndexOnce(pool, 999, 10);
    });
  }
  for (auto& c : callers) c.join();
}

TEST(ThreadPool, NonPositiveThreadCountMeansOne) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.num_threads(), 1);
  ExpectEachIndexOnce(pool, 10, 1);
}

}  // namespace
}  // namespace nxrt
