// core/tensor_test.cpp: unit tests of Tensor and the shape helpers (nxrt/tensor.h), and of Value's
// description (nxrt/value.h).
#include "nxrt/tensor.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "nxrt/value.h"

namespace nxrt {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

}  // namespace
}  // namespace nxrt

// In the sanitizer build (NXRT_SANITIZE), let calloc return null for impossible sizes, as the
// normal allocator does, instead of AddressSanitizer aborting; the huge-shape tests rely on it.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace nxrt {
namespace {

TEST(ShapeTest, ElementCount) {
  EXPECT_EQ(*ElementCount(Shape{}), 1);
  EXPECT_EQ(*ElementCount(Shape{2, 3, 4}), 24);
  EXPECT_EQ(*ElementCount(Shape{5, 0, 7}), 0);
  EXPECT_EQ(*ElementCount(Shape{kMax}), kMax);
  EXPECT_EQ(*ElementCount(Shape{1LL << 31, 1LL << 31}), 1LL << 62);
}

TEST(ShapeTest, ElementCountErrors) {
  Result<int64_t> negative = ElementCount(Shape{2, -1, 3});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.status().message(), "shape [2,-1,3] has dim 1 = -1; dims must be >= 0");

  Result<int64_t> overflow = ElementCount(Shape{1LL << 32, 1LL << 32});
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(overflow.status().message().find("[4294967296,4294967296]"), std::string::npos);

  // A zero dim does not excuse a negative one.
  EXPECT_FALSE(ElementCount(Shape{0, -5}).ok());
}

TEST(ShapeTest, ContiguousStridesAndToString) {
  EXPECT_EQ(ContiguousStrides(Shape{2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(ContiguousStrides(Shape{}), std::vector<int64_t>{});
  EXPECT_EQ(ContiguousStrides(Shape{3, 0, 2}), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(ShapeToString(Shape{1, 3, 224, 224}), "[1,3,224,224]");
  EXPECT_EQ(ShapeToString(Shape{}), "[]");
}

TEST(TensorTest, DefaultIsUndefined) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_EQ(t.dtype(), DataType::kUndefined);
  EXPECT_EQ(t.element_count(), 0);
  EXPECT_EQ(t.raw_data(), nullptr);
  Result<Tensor> c = t.Clone();
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->defined());
}

TEST(TensorTest, AllocateIsAlignedZeroedAndOwned) {
  for (DataType dtype : {DataType::kFloat, DataType::kUint8, DataType::kInt64, DataType::kBool,
                         DataType::kFloat16, DataType::kComplex128}) {
    Result<Tensor> r = Tensor::Allocate(dtype, {3, 5, 7});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const Tensor& t = *r;
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.shape(), (Shape{3, 5, 7}));
    EXPECT_EQ(t.strides(), (std::vector<int64_t>{35, 7, 1}));
    EXPECT_EQ(t.rank(), 3u);
    EXPECT_EQ(t.element_count(), 105);
    EXPECT_EQ(t.byte_size(), 105 * DataTypeSize(dtype));
    EXPECT_TRUE(t.owns_data());
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
    const auto* bytes = static_cast<const uint8_t*>(t.raw_data());
    for (size_t i = 0; i < t.byte_size(); ++i) ASSERT_EQ(bytes[i], 0) << i;
  }
}

TEST(TensorTest, AllocateScalarAndEmpty) {
  Tensor scalar = *Tensor::Allocate(DataType::kDouble, {});
  EXPECT_EQ(scalar.rank(), 0u);
  EXPECT_EQ(scalar.element_count(), 1);
  EXPECT_EQ(*scalar.data<double>(), 0.0);

  Tensor empty = *Tensor::Allocate(DataType::kFloat, {4, 0});
  EXPECT_EQ(empty.element_count(), 0);
  EXPECT_EQ(empty.byte_size(), 0u);
  EXPECT_NE(empty.raw_data(), nullptr);
}

TEST(TensorTest, AllocateErrorsNeverAbort) {
  Result<Tensor> undefined = Tensor::Allocate(DataType::kUndefined, {2});
  EXPECT_EQ(undefined.status().code(), StatusCode::kInvalidArgument);

  Result<Tensor> negative = Tensor::Allocate(DataType::kFloat, {2, -3});
  EXPECT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(negative.status().message().find("dim 1 is negative"), std::string::npos);

  // Element count fits int64 but the byte size does not fit size_t.
  Result<Tensor> bytes_overflow = Tensor::Allocate(DataType::kDouble, {1LL << 62});
  EXPECT_EQ(bytes_overflow.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(bytes_overflow.status().message().find("overflows"), std::string::npos);

  // Element count overflows int64.
  Result<Tensor> count_overflow = Tensor::Allocate(DataType::kUint8, {kMax, 2});
  EXPECT_EQ(count_overflow.status().code(), StatusCode::kOutOfMemory);

  // 2^50 bytes (1 PiB) is representable but no machine has it: calloc fails cleanly.
  Result<Tensor> huge = Tensor::Allocate(DataType::kUint8, {1LL << 25, 1LL << 25});
  EXPECT_EQ(huge.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(huge.status().message().find("1125899906842624 bytes"), std::string::npos)
      << huge.status().message();

  Result<Tensor> huge_strings = Tensor::Allocate(DataType::kString, {1LL << 50});
  EXPECT_EQ(huge_strings.status().code(), StatusCode::kOutOfMemory);
}

TEST(TensorTest, StringsAreConstructedAndDestroyed) {
  Tensor t = *Tensor::Allocate(DataType::kString, {2, 2});
  EXPECT_EQ(t.byte_size(), 4 * sizeof(std::string));
  for (const std::string& s : t.span<std::string>()) EXPECT_TRUE(s.empty());
  // Long strings own heap memory; the sanitizer build checks they are freed.
  t.mutable_data<std::string>()[3] = std::string(1000, 'x');
  Tensor copy = t;  // shares the buffer
  EXPECT_EQ(copy.data<std::string>()[3].size(), 1000u);
  EXPECT_EQ(copy.raw_data(), t.raw_data());
}

TEST(TensorTest, ScalarAndFromVector) {
  Tensor s = Tensor::Scalar<int64_t>(-7);
  EXPECT_EQ(s.dtype(), DataType::kInt64);
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(*s.data<int64_t>(), -7);

  Tensor str = Tensor::Scalar(std::string("hello"));
  EXPECT_EQ(*str.data<std::string>(), "hello");

  Tensor v = *Tensor::FromVector<float>({2, 2}, {1.5f, -2.0f, 3.25f, 0.0f});
  EXPECT_EQ(v.dtype(), DataType::kFloat);
  EXPECT_EQ(v.data<float>()[2], 3.25f);

  Result<Tensor> wrong = Tensor::FromVector<int32_t>({2, 3}, {1, 2, 3});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "tensor of shape [2,3] needs 6 values, got 3");
}

TEST(TensorTest, BorrowDoesNotOwnAndKeepsHandleAlive) {
  auto storage = std::make_shared<std::vector<int32_t>>(std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  std::weak_ptr<std::vector<int32_t>> watch = storage;
  Tensor t = Tensor::Borrow(DataType::kInt32, {2, 3}, storage->data(), storage);
  storage.reset();
  EXPECT_FALSE(watch.expired());
  EXPECT_FALSE(t.owns_data());
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.data<int32_t>()[5], 6);
  {
    Tensor copy = t;
    t = Tensor();
    EXPECT_FALSE(watch.expired());
  }
  EXPECT_TRUE(watch.expired());
}

TEST(TensorTest, AdoptOwnsTheBufferItTakesOver) {
  auto bytes = std::make_shared<std::string>(6 * sizeof(int32_t), '\0');
  for (int32_t i = 0; i < 6; ++i) std::memcpy(bytes->data() + i * 4, &i, 4);
  std::weak_ptr<std::string> watch = bytes;
  void* data = bytes->data();
  Tensor t = Tensor::Adopt(DataType::kInt32, {2, 3}, data, std::move(bytes));
  EXPECT_TRUE(t.owns_data());
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.raw_data(), data);
  EXPECT_EQ(t.data<int32_t>()[5], 5);
  {
    Tensor copy = t;
    t = Tensor();
    EXPECT_FALSE(watch.expired());
  }
  EXPECT_TRUE(watch.expired());

  float x = 0;
  Tensor invalid = Tensor::Adopt(DataType::kFloat, {-1}, &x, nullptr);
  EXPECT_FALSE(invalid.defined());
  EXPECT_FALSE(invalid.owns_data());
}

TEST(TensorTest, BorrowInvalidGivesUndefined) {
  float x = 0;
  EXPECT_FALSE(Tensor::Borrow(DataType::kFloat, {-1}, &x).defined());
  EXPECT_FALSE(Tensor::Borrow(DataType::kUndefined, {1}, &x).defined());
  EXPECT_FALSE(Tensor::BorrowStrided(DataType::kFloat, {1, 1}, {1}, &x).defined());
}

TEST(TensorTest, ContiguityIgnoresUnitDims) {
  float x[6] = {};
  EXPECT_TRUE(Tensor::BorrowStrided(DataType::kFloat, {3, 1, 2}, {2, 99, 1}, x).is_contiguous());
  EXPECT_FALSE(Tensor::BorrowStrided(DataType::kFloat, {2, 3}, {1, 2}, x).is_contiguous());
  EXPECT_FALSE(Tensor::BorrowStrided(DataType::kFloat, {2, 3}, {0, 1}, x).is_contiguous());
  EXPECT_TRUE(Tensor::BorrowStrided(DataType::kFloat, {0, 3}, {7, 7}, x).is_contiguous());
}

TEST(TensorTest, CloneGathersTransposedView) {
  // base is the 2x3 matrix [[0,1,2],[3,4,5]]; the view is its transpose, shape [3,2],
  // strides [1,3]: element (i,j) = base[j*3 + i].
  std::vector<float> base = {0, 1, 2, 3, 4, 5};
  Tensor view = Tensor::BorrowStrided(DataType::kFloat, {3, 2}, {1, 3}, base.data());
  Tensor c = *view.Clone();
  EXPECT_TRUE(c.owns_data());
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(std::vector<float>(c.span<float>().begin(), c.span<float>().end()),
            (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorTest, CloneGathersBroadcastSliceAndNegativeStrides) {
  std::vector<int16_t> base(24);
  std::iota(base.begin(), base.end(), 100);  // 100..123 laid out as [2,3,4]

  // Broadcast row: shape [3,4] with strides [0,1] repeats base[0..3].
  Tensor bcast = Tensor::BorrowStrided(DataType::kInt16, {3, 4}, {0, 1}, base.data());
  Tensor b = *bcast.Clone();
  EXPECT_EQ(std::vector<int16_t>(b.span<int16_t>().begin(), b.span<int16_t>().end()),
            (std::vector<int16_t>{100, 101, 102, 103, 100, 101, 102, 103, 100, 101, 102, 103}));

  // Slice [:, 1:3, ::2] of the [2,3,4] array: shape [2,2,2], strides [12,4,2], start offset 4.
  // Hand gather: (0,1,0)=104 (0,1,2)=106 (0,2,0)=108 (0,2,2)=110 (1,1,0)=116 ...
  Tensor slice = Tensor::BorrowStrided(DataType::kInt16, {2, 2, 2}, {12, 4, 2}, base.data() + 4);
  Tensor s = *slice.Clone();
  EXPECT_EQ(std::vector<int16_t>(s.span<int16_t>().begin(), s.span<int16_t>().end()),
            (std::vector<int16_t>{104, 106, 108, 110, 116, 118, 120, 122}));

  // Reversed last axis of the first row: shape [4], stride -1, starting at base[3].
  Tensor reversed = Tensor::BorrowStrided(DataType::kInt16, {4}, {-1}, base.data() + 3);
  Tensor r = *reversed.Clone();
  EXPECT_EQ(std::vector<int16_t>(r.span<int16_t>().begin(), r.span<int16_t>().end()),
            (std::vector<int16_t>{103, 102, 101, 100}));
}

TEST(TensorTest, CloneStridedWorksForEveryDtype) {
  // A [2,2] view with strides [1,2] of a 4-element buffer picks elements 0,2,1,3.
  const std::vector<size_t> order = {0, 2, 1, 3};
  for (int32_t n = 1; n <= 16; ++n) {
    const DataType dtype = *DataTypeFromOnnx(n);
    if (dtype == DataType::kString) continue;
    const size_t size = DataTypeSize(dtype);
    std::vector<uint8_t> buffer(4 * size);
    for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<uint8_t>(i * 7 + 1);
    Tensor view = Tensor::BorrowStrided(dtype, {2, 2}, {1, 2}, buffer.data());
    Tensor c = *view.Clone();
    ASSERT_EQ(c.dtype(), dtype);
    const auto* out = static_cast<const uint8_t*>(c.raw_data());
    for (size_t e = 0; e < 4; ++e) {
      for (size_t b = 0; b < size; ++b) {
        ASSERT_EQ(out[e * size + b], buffer[order[e] * size + b]) << DataTypeName(dtype);
      }
    }
  }
}

TEST(TensorTest, CloneStringsIsDeep) {
  std::vector<std::string> base = {"a", "bb", "ccc", "dddd", "eeeee", "ffffff"};
  Tensor view = Tensor::BorrowStrided(DataType::kString, {3, 2}, {1, 3}, base.data());
  Tensor c = *view.Clone();
  std::vector<std::string> got(c.span<std::string>().begin(), c.span<std::string>().end());
  EXPECT_EQ(got, (std::vector<std::string>{"a", "dddd", "bb", "eeeee", "ccc", "ffffff"}));
  base[0] = "changed";
  EXPECT_EQ(c.data<std::string>()[0], "a");

  Tensor contiguous = Tensor::Borrow(DataType::kString, {6}, base.data());
  Tensor c2 = *contiguous.Clone();
  EXPECT_EQ(c2.data<std::string>()[0], "changed");
  EXPECT_NE(c2.raw_data(), contiguous.raw_data());
}

TEST(TensorTest, CloneOfOwnedIsIndependent) {
  Tensor a = *Tensor::FromVector<uint8_t>({3}, {1, 2, 3});
  Tensor b = *a.Clone();
  b.mutable_data<uint8_t>()[0] = 9;
  EXPECT_EQ(a.data<uint8_t>()[0], 1);
  Tensor shared = a;
  shared.mutable_data<uint8_t>()[1] = 8;
  EXPECT_EQ(a.data<uint8_t>()[1], 8);
}

TEST(TensorTest, Reshaped) {
  Tensor a = *Tensor::FromVector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor r = *a.Reshaped({3, 1, 2});
  EXPECT_EQ(r.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(r.strides(), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(r.raw_data(), a.raw_data());
  EXPECT_TRUE(r.owns_data());
  EXPECT_EQ(r.data<int32_t>()[4], 5);

  Result<Tensor> wrong = a.Reshaped({4, 2});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(wrong.status().message(),
            "cannot reshape int32[2,3] (6 elements) to [4,2] (8 elements)");

  EXPECT_EQ(a.Reshaped({-2, -3}).status().code(), StatusCode::kInvalidArgument);

  int32_t data[6] = {};
  Tensor strided = Tensor::BorrowStrided(DataType::kInt32, {3, 2}, {1, 3}, data);
  Result<Tensor> strided_reshape = strided.Reshaped({6});
  ASSERT_FALSE(strided_reshape.ok());
  EXPECT_NE(strided_reshape.status().message().find("strided int32[3,2]"), std::string::npos);
}

TEST(TensorTest, Description) {
  EXPECT_EQ(Tensor::Allocate(DataType::kFloat, {1, 3, 224, 224})->Description(),
            "float[1,3,224,224]");
  EXPECT_EQ(Tensor::Scalar<bool>(true).Description(), "bool[]");
  EXPECT_EQ(Tensor().Description(), "undefined[]");
}

// A sequence lists up to five elements, else the first four and how many more.
TEST(ValueTest, SequenceDescriptionListsTheFirstFourElements) {
  auto sequence = [](int64_t count) {
    std::vector<Tensor> tensors;
    for (int64_t i = 0; i < count; ++i) tensors.push_back(*Tensor::Allocate(DataType::kFloat, {i}));
    return *Value::Sequence(DataType::kFloat, std::move(tensors));
  };
  EXPECT_EQ(sequence(0).Description(), "seq(float)[]");
  EXPECT_EQ(sequence(5).Description(),
            "seq(float)[float[0], float[1], float[2], float[3], float[4]]");
  EXPECT_EQ(sequence(7).Description(),
            "seq(float)[float[0], float[1], float[2], float[3], ... 3 more]");
}

}  // namespace
}  // namespace nxrt
