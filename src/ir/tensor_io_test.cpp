// ir/tensor_io_test.cpp: tests of ir/tensor_proto.h and ir/tensor_io.h: TensorProto,
// SequenceProto, OptionalProto, .npy and .npz reading and writing, every ONNX test-data file of
// libonnx-testdata, and bad inputs.
//
// The hex fixtures below were written by numpy 1.24.2 (Debian's python3-numpy) with np.save,
// np.lib.format.write_array(version=...), np.savez and np.savez_compressed; the arrays each
// holds are spelled out next to it. Values of test-data files were printed with onnx 1.12's
// numpy_helper.to_array, as noted at each test.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <complex>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ir/onnx_loader.h"
#include "ir/onnx_test_models.h"
#include "ir/tensor_io.h"
#include "ir/tensor_proto.h"
#include "onnx/onnx-data.pb.h"

namespace nxrt::ir {
namespace {

namespace fs = std::filesystem;

// np.save(np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, 65504.0]], dtype="<f4")): 152 bytes.
constexpr std::string_view kF4Npy =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a204661"
    "6c73652c20277368617065273a2028322c2033292c207d2020202020202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020200a0000c03f000000c00000"
    "5040000000006f12833a00e07f47";
// np.save(np.asfortranarray(np.arange(6, dtype=">i4").reshape(2, 3))): big endian, Fortran order.
constexpr std::string_view kBigEndianFortranI4Npy =
    "934e554d5059010076007b276465736372273a20273e6934272c2027666f727472616e5f6f72646572273a205472"
    "75652c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020200a00000000000000030000"
    "0001000000040000000200000005";
// write_array(np.array([1.0, -0.5, 65504], dtype="<f2"), version=(2, 0)).
constexpr std::string_view kV2F2Npy =
    "934e554d50590200740000007b276465736372273a20273c6632272c2027666f727472616e5f6f72646572273a20"
    "46616c73652c20277368617065273a2028332c292c207d2020202020202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020200a003c00b8ff7b";
// write_array(np.array([[1, 65535]], dtype=">u2"), version=(3, 0)).
constexpr std::string_view kV3U2Npy =
    "934e554d50590300740000007b276465736372273a20273e7532272c2027666f727472616e5f6f72646572273a20"
    "46616c73652c20277368617065273a2028312c2032292c207d202020202020202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020200a0001ffff";
// np.savez(a=np.array([1, 2, 3], dtype=np.int64), flags=np.array([True, False])): stored entries
// with zip64 extra fields in the local headers.
constexpr std::string_view kStoredNpz =
    "504b030414000000000000002100bc91558e980000009800000005001400612e6e70790100100098000000000000"
    "009800000000000000934e554d5059010076007b276465736372273a20273c6938272c2027666f727472616e5f6f"
    "72646572273a2046616c73652c20277368617065273a2028332c292c207d20202020202020202020202020202020"
    "20202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a01"
    "0000000000000002000000000000000300000000000000504b030414000000000000002100ee19bb5d8200000082"
    "00000009001400666c6167732e6e70790100100082000000000000008200000000000000934e554d505901007600"
    "7b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046616c73652c202773686170"
    "65273a2028322c292c207d2020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020202020202020202020202020200a0100504b0102140314000000000000002100bc91"
    "558e9800000098000000050000000000000000000000800100000000612e6e7079504b0102140314000000000000"
    "002100ee19bb5d82000000820000000900000000000000000000008001cf000000666c6167732e6e7079504b0506"
    "00000000020002006a0000008c0100000000";
// np.savez_compressed(x=np.arange(12, dtype=np.float64).reshape(3, 4),
//                     y=np.array(7, dtype=np.uint8)): deflate entries.
constexpr std::string_view kDeflateNpz =
    "504b0304140000000800000021005415a96666000000e000000005001400782e6e707901001000e0000000000000"
    "0066000000000000009bec17ea1b10c9c850c650ad9e925a9c5ca46ea5a06e9366a1aea3a09e965f54529498179f"
    "5f94920a12774bcc294e058a17672416a402f91ac63a0a269a3a0ab50a64032e0614f0c11eca7080501c505a004a"
    "8b406909282d03a515a0b412945681d26a0e00504b030414000000080000002100760e1389430000008100000005"
    "001400792e6e707901001000810000000000000043000000000000009bec17ea1b10c9c850c650ad9e925a9c5ca4"
    "6ea5a05e536aa8aea3a09e965f54529498179f5f94920a12774bcc294e058a17672416a402f91a9a3a0ab50a1401"
    "2e7600504b01021403140000000800000021005415a96666000000e0000000050000000000000000000000800100"
    "000000782e6e7079504b0102140314000000080000002100760e1389430000008100000005000000000000000000"
    "000080019d000000792e6e7079504b0506000000000200020066000000170100000000";

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DataTypeOf<T>());
  return std::vector<T>(t.data<T>(), t.data<T>() + t.element_count());
}

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit: the check zip uses.
uint32_t Crc32(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (char c : data) {
    crc ^= static_cast<uint8_t>(c);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::vector<uint16_t> Bits16(const Tensor& t) {
  const auto* p = static_cast<const uint16_t*>(t.raw_data());
  return std::vector<uint16_t>(p, p + t.element_count());
}

bool SameContents(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DataType::kString) return Values<std::string>(a) == Values<std::string>(b);
  return std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

// A [2,3] tensor of `dtype` with distinct, deterministic contents.
Tensor Sample(DataType dtype) {
  Tensor t = *Tensor::Allocate(dtype, {2, 3});
  if (dtype == DataType::kString) {
    const std::vector<std::string> words = {"a",
                                            "",
                                            "\xc3\xbc"
                                            "ber",
                                            std::string("nul\0in", 6),
                                            "long string of some length",
                                            "z"};
    for (size_t i = 0; i < words.size(); ++i) t.mutable_data<std::string>()[i] = words[i];
    return t;
  }
  auto* bytes = static_cast<uint8_t*>(t.mutable_raw_data());
  for (size_t i = 0; i < t.byte_size(); ++i) bytes[i] = static_cast<uint8_t>(i * 37 + 11);
  if (dtype == DataType::kBool) {
    for (size_t i = 0; i < 6; ++i) bytes[i] = static_cast<uint8_t>(i % 3 == 0);
  }
  return t;
}

std::vector<DataType> AllTypes() {
  std::vector<DataType> out;
  for (int32_t n = 1; n <= 22; ++n) out.push_back(*DataTypeFromOnnx(n));
  return out;
}

using testing::TempDir;

void WriteBytes(const fs::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// ---- TensorProto -----------------------------------------------------------------------------

TEST(TensorProtoTest, RoundTripEveryDtype) {
  for (DataType dtype : AllTypes()) {
    const Tensor original = Sample(dtype);
    onnx::TensorProto proto;
    ASSERT_TRUE(TensorToProto(original, "t", &proto).ok());
    EXPECT_EQ(proto.name(), "t");
    EXPECT_EQ(proto.data_type(), static_cast<int32_t>(dtype));
    EXPECT_EQ(proto.dims_size(), 2);
    EXPECT_EQ(proto.has_raw_data(), dtype != DataType::kString) << DataTypeName(dtype);
    const std::string bytes = proto.SerializeAsString();
    Result<Tensor> back = ParseTensorProto(bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(back->owns_data());
    EXPECT_TRUE(SameContents(original, *back)) << DataTypeName(dtype);
  }
}

TEST(TensorProtoTest, RawDataIsLittleEndian) {
  Tensor t = *Tensor::FromVector<int32_t>({2}, {0x01020304, -2});
  onnx::TensorProto proto;
  ASSERT_TRUE(TensorToProto(t, "x", &proto).ok());
  EXPECT_EQ(proto.raw_data(), std::string("\x04\x03\x02\x01\xfe\xff\xff\xff", 8));
}

TEST(TensorProtoTest, TakeAdoptsRawDataWithoutACopy) {
  std::vector<float> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  onnx::TensorProto proto;
  ASSERT_TRUE(TensorToProto(*Tensor::FromVector<float>({10, 100}, values), "w", &proto).ok());
  const char* bytes = proto.raw_data().data();
  Result<Tensor> t = TakeTensorFromProto(proto);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->raw_data(), bytes);
  EXPECT_TRUE(t->owns_data());
  EXPECT_EQ(t->shape(), (Shape{10, 100}));
  EXPECT_EQ(std::vector<float>(t->span<float>().begin(), t->span<float>().end()), values);
  EXPECT_FALSE(proto.has_raw_data());

  onnx::TensorProto flags;
  flags.set_data_type(onnx::TensorProto::BOOL);
  flags.add_dims(40);
  flags.set_raw_data(std::string(40, '\x02'));
  Result<Tensor> b = TakeTensorFromProto(flags);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  for (bool v : b->span<bool>()) EXPECT_EQ(static_cast<int>(v), 1);

  onnx::TensorProto wrong;
  wrong.set_name("x");
  wrong.set_data_type(onnx::TensorProto::FLOAT);
  wrong.add_dims(6);
  wrong.set_raw_data(std::string(20, '\0'));
  Result<Tensor> r = TakeTensorFromProto(wrong);
  EXPECT_EQ(r.status().message(),
            "tensor 'x': dims [6] of float need 24 bytes of raw_data, got 20");
  EXPECT_EQ(wrong.raw_data().size(), 20u);
}

TEST(TensorProtoTest, FileRoundTripEveryDtype) {
  TempDir dir("tensor_io");
  for (DataType dtype : AllTypes()) {
    const fs::path path = dir / (std::string(DataTypeName(dtype)) + ".pb");
    ASSERT_TRUE(WriteTensorProtoFile(path, Sample(dtype), "v").ok());
    Result<Tensor> back = ReadTensorProtoFile(path);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(SameContents(Sample(dtype), *back)) << DataTypeName(dtype);
  }
}

TEST(TensorProtoTest, StridedTensorIsGathered) {
  std::vector<float> base = {0, 1, 2, 3, 4, 5};  // [2,3]; the view is its transpose
  Tensor view = Tensor::BorrowStrided(DataType::kFloat, {3, 2}, {1, 3}, base.data());
  onnx::TensorProto proto;
  ASSERT_TRUE(TensorToProto(view, "t", &proto).ok());
  Tensor back = *TensorFromProto(proto);
  EXPECT_EQ(back.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<float>(back), (std::vector<float>{0, 3, 1, 4, 2, 5}));

  std::vector<std::string> words = {"a", "b", "c", "d"};
  Tensor strided_strings = Tensor::BorrowStrided(DataType::kString, {2, 2}, {1, 2}, words.data());
  ASSERT_TRUE(TensorToProto(strided_strings, "s", &proto).ok());
  EXPECT_EQ(Values<std::string>(*TensorFromProto(proto)),
            (std::vector<std::string>{"a", "c", "b", "d"}));

  Status undefined = TensorToProto(Tensor(), "u", &proto);
  EXPECT_EQ(undefined.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(undefined.message(), "cannot write tensor 'u': the tensor is undefined");
}

TEST(TensorProtoTest, TypedFields) {
  onnx::TensorProto p;
  p.set_name("f");
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(3);
  for (float v : {1.5f, -2.0f, 0.25f}) p.add_float_data(v);
  EXPECT_EQ(Values<float>(*TensorFromProto(p)), (std::vector<float>{1.5f, -2.0f, 0.25f}));

  onnx::TensorProto i8;
  i8.set_data_type(onnx::TensorProto::INT8);
  i8.add_dims(3);
  for (int v : {-128, 0, 127}) i8.add_int32_data(v);
  EXPECT_EQ(Values<int8_t>(*TensorFromProto(i8)), (std::vector<int8_t>{-128, 0, 127}));

  onnx::TensorProto u16;
  u16.set_data_type(onnx::TensorProto::UINT16);
  u16.add_dims(2);
  for (int v : {65535, 7}) u16.add_int32_data(v);
  EXPECT_EQ(Values<uint16_t>(*TensorFromProto(u16)), (std::vector<uint16_t>{65535, 7}));

  // float16 and bfloat16 keep their bit patterns in int32_data: 0x3C00 = 1.0, 0xC000 = -2.0.
  onnx::TensorProto f16;
  f16.set_data_type(onnx::TensorProto::FLOAT16);
  f16.add_dims(2);
  f16.add_int32_data(0x3C00);
  f16.add_int32_data(0xC000);
  Tensor h = *TensorFromProto(f16);
  EXPECT_EQ(h.dtype(), DataType::kFloat16);
  EXPECT_EQ(Bits16(h), (std::vector<uint16_t>{0x3C00, 0xC000}));
  EXPECT_EQ(Float16::ToFloat(Bits16(h)[1]), -2.0f);

  // float8 (data_type 17, ONNX 1.14) keeps its byte in int32_data; int4 (22, ONNX 1.16) packs two
  // elements per entry, low nibble first: 5 elements in 3 entries.
  onnx::TensorProto f8;
  f8.set_data_type(17);
  f8.add_dims(2);
  f8.add_int32_data(0x38);
  f8.add_int32_data(0xFE);
  Tensor e4m3 = *TensorFromProto(f8);
  EXPECT_EQ(e4m3.dtype(), DataType::kFloat8E4M3FN);
  EXPECT_EQ(static_cast<float>(e4m3.data<Float8E4M3FN>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(e4m3.data<Float8E4M3FN>()[1]), -448.0f);
  onnx::TensorProto i4;
  i4.set_name("i4");
  i4.set_data_type(22);
  i4.add_dims(5);
  for (int v : {0x21, 0xF8, 0x07}) i4.add_int32_data(v);
  Tensor nibbles = *TensorFromProto(i4);
  EXPECT_EQ(nibbles.dtype(), DataType::kInt4);
  EXPECT_EQ(nibbles.byte_size(), 3u);
  const auto* packed = static_cast<const uint8_t*>(nibbles.raw_data());
  EXPECT_EQ((std::vector<int>{packed[0], packed[1], packed[2]}), (std::vector<int>{0x21, 0xF8, 7}));
  i4.add_int32_data(0);
  EXPECT_EQ(TensorFromProto(i4).status().message(),
            "tensor 'i4': dims [5] of int4 need 3 values in int32_data, got 4");
  onnx::TensorProto u4;
  u4.set_data_type(21);
  u4.add_dims(3);
  u4.set_raw_data(std::string("\x21\x03", 2));
  EXPECT_EQ(TensorFromProto(u4)->element_count(), 3);
  u4.set_raw_data(std::string("\x21\x03\x00", 3));
  EXPECT_EQ(TensorFromProto(u4).status().message(),
            "unnamed tensor: dims [3] of uint4 need 2 bytes of raw_data, got 3");

  onnx::TensorProto bf16;
  bf16.set_data_type(onnx::TensorProto::BFLOAT16);
  bf16.add_int32_data(0x3F80);  // scalar 1.0
  Tensor b = *TensorFromProto(bf16);
  EXPECT_EQ(b.rank(), 0u);
  EXPECT_EQ(BFloat16::ToFloat(Bits16(b)[0]), 1.0f);

  onnx::TensorProto flags;
  flags.set_data_type(onnx::TensorProto::BOOL);
  flags.add_dims(3);
  for (int v : {0, 1, 5}) flags.add_int32_data(v);
  EXPECT_EQ(Values<bool>(*TensorFromProto(flags)), (std::vector<bool>{false, true, true}));

  onnx::TensorProto i64;
  i64.set_data_type(onnx::TensorProto::INT64);
  i64.add_dims(2);
  i64.add_int64_data(-9000000000LL);
  i64.add_int64_data(3);
  EXPECT_EQ(Values<int64_t>(*TensorFromProto(i64)), (std::vector<int64_t>{-9000000000LL, 3}));

  onnx::TensorProto u32;
  u32.set_data_type(onnx::TensorProto::UINT32);
  u32.add_dims(2);
  u32.add_uint64_data(4294967295u);
  u32.add_uint64_data(1);
  EXPECT_EQ(Values<uint32_t>(*TensorFromProto(u32)), (std::vector<uint32_t>{4294967295u, 1}));

  onnx::TensorProto u64;
  u64.set_data_type(onnx::TensorProto::UINT64);
  u64.add_dims(1);
  u64.add_uint64_data(18446744073709551615ull);
  EXPECT_EQ(Values<uint64_t>(*TensorFromProto(u64)),
            (std::vector<uint64_t>{18446744073709551615ull}));

  onnx::TensorProto f64;
  f64.set_data_type(onnx::TensorProto::DOUBLE);
  f64.add_dims(1);
  f64.add_double_data(0.1);
  EXPECT_EQ(Values<double>(*TensorFromProto(f64)), (std::vector<double>{0.1}));

  onnx::TensorProto c64;
  c64.set_data_type(onnx::TensorProto::COMPLEX64);
  c64.add_dims(2);
  for (float v : {1.0f, 2.0f, -3.0f, 0.5f}) c64.add_float_data(v);
  EXPECT_EQ(Values<std::complex<float>>(*TensorFromProto(c64)),
            (std::vector<std::complex<float>>{{1.0f, 2.0f}, {-3.0f, 0.5f}}));

  onnx::TensorProto c128;
  c128.set_data_type(onnx::TensorProto::COMPLEX128);
  c128.add_dims(1);
  c128.add_double_data(-1.25);
  c128.add_double_data(8.0);
  EXPECT_EQ(Values<std::complex<double>>(*TensorFromProto(c128)),
            (std::vector<std::complex<double>>{{-1.25, 8.0}}));

  onnx::TensorProto strings;
  strings.set_data_type(onnx::TensorProto::STRING);
  strings.add_dims(2);
  strings.add_string_data("hello");
  strings.add_string_data(std::string("\0x", 2));
  EXPECT_EQ(Values<std::string>(*TensorFromProto(strings)),
            (std::vector<std::string>{"hello", std::string("\0x", 2)}));

  onnx::TensorProto empty;
  empty.set_data_type(onnx::TensorProto::FLOAT);
  empty.add_dims(0);
  empty.add_dims(4);
  Tensor e = *TensorFromProto(empty);
  EXPECT_EQ(e.shape(), (Shape{0, 4}));
  EXPECT_EQ(e.element_count(), 0);
}

TEST(TensorProtoTest, BadSizesNameTheTensorAndTheNumbers) {
  onnx::TensorProto raw;
  raw.set_name("x");
  raw.set_data_type(onnx::TensorProto::FLOAT);
  raw.add_dims(2);
  raw.add_dims(3);
  raw.set_raw_data(std::string(20, '\0'));
  Result<Tensor> r = TensorFromProto(raw);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidModel);
  EXPECT_EQ(r.status().message(),
            "tensor 'x': dims [2,3] of float need 24 bytes of raw_data, got 20");

  onnx::TensorProto typed;
  typed.set_name("w");
  typed.set_data_type(onnx::TensorProto::INT64);
  typed.add_dims(2);
  typed.add_dims(2);
  for (int v : {1, 2, 3}) typed.add_int64_data(v);
  EXPECT_EQ(TensorFromProto(typed).status().message(),
            "tensor 'w': dims [2,2] of int64 need 4 values in int64_data, got 3");

  onnx::TensorProto complex;
  complex.set_name("c");
  complex.set_data_type(onnx::TensorProto::COMPLEX64);
  complex.add_dims(2);
  for (float v : {1.0f, 2.0f, 3.0f}) complex.add_float_data(v);
  EXPECT_EQ(TensorFromProto(complex).status().message(),
            "tensor 'c': dims [2] of complex64 need 4 values in float_data, got 3");

  onnx::TensorProto no_data;
  no_data.set_data_type(onnx::TensorProto::DOUBLE);
  no_data.add_dims(2);
  EXPECT_EQ(TensorFromProto(no_data).status().message(),
            "unnamed tensor: dims [2] of double need 2 values in double_data, got 0");
}

TEST(TensorProtoTest, BadHeaders) {
  onnx::TensorProto undefined;
  undefined.set_name("u");
  EXPECT_EQ(TensorFromProto(undefined).status().message(),
            "tensor 'u': data_type 0 (UNDEFINED) is not an element type nxrt knows (1..22)");

  onnx::TensorProto unknown;
  unknown.set_name("k");
  unknown.set_data_type(23);
  EXPECT_EQ(TensorFromProto(unknown).status().code(), StatusCode::kInvalidModel);

  onnx::TensorProto negative;
  negative.set_name("n");
  negative.set_data_type(onnx::TensorProto::FLOAT);
  negative.add_dims(3);
  negative.add_dims(-1);
  EXPECT_EQ(TensorFromProto(negative).status().message(),
            "tensor 'n': shape [3,-1] has dim 1 = -1; dims must be >= 0");

  onnx::TensorProto huge;
  huge.set_name("h");
  huge.set_data_type(onnx::TensorProto::FLOAT);
  huge.add_dims(1LL << 40);
  huge.add_dims(1LL << 40);
  EXPECT_EQ(TensorFromProto(huge).status().code(), StatusCode::kInvalidModel);

  // Sizes are checked before anything is allocated: 2^50 floats are never attempted.
  onnx::TensorProto too_big;
  too_big.set_name("b");
  too_big.set_data_type(onnx::TensorProto::FLOAT);
  too_big.add_dims(1LL << 50);
  too_big.set_raw_data("abcd");
  EXPECT_EQ(TensorFromProto(too_big).status().message(),
            "tensor 'b': dims [1125899906842624] of float need 4503599627370496 bytes of "
            "raw_data, got 4");
  too_big.clear_raw_data();
  too_big.set_data_type(onnx::TensorProto::COMPLEX128);
  too_big.set_dims(0, 1LL << 62);
  EXPECT_EQ(TensorFromProto(too_big).status().message(),
            "tensor 'b': dims [4611686018427387904] of complex128 need 9223372036854775808 values "
            "in double_data, got 0");
  too_big.set_raw_data("abcd");
  EXPECT_EQ(TensorFromProto(too_big).status().message(),
            "tensor 'b': dims [4611686018427387904] of complex128 need more than 2^64 bytes of "
            "raw_data, got 4");

  onnx::TensorProto raw_strings;
  raw_strings.set_name("s");
  raw_strings.set_data_type(onnx::TensorProto::STRING);
  raw_strings.add_dims(1);
  raw_strings.set_raw_data("abc");
  EXPECT_EQ(TensorFromProto(raw_strings).status().message(),
            "tensor 's': string tensors must use string_data, not raw_data (3 bytes)");

  onnx::TensorProto segment;
  segment.set_name("g");
  segment.set_data_type(onnx::TensorProto::FLOAT);
  segment.mutable_segment()->set_begin(0);
  segment.mutable_segment()->set_end(4);
  EXPECT_EQ(TensorFromProto(segment).status().code(), StatusCode::kNotImplemented);
}

TEST(TensorProtoTest, ExternalData) {
  onnx::TensorProto proto;
  proto.set_name("w");
  proto.set_data_type(onnx::TensorProto::FLOAT);
  proto.add_dims(2);
  proto.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = proto.add_external_data();
  location->set_key("location");
  location->set_value("w.bin");

  Result<Tensor> no_reader = TensorFromProto(proto);
  EXPECT_EQ(no_reader.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(no_reader.status().message(),
            "tensor 'w': keeps its data outside the proto (location='w.bin') but no external "
            "data reader was given");

  const ExternalDataFn reader = [](const onnx::TensorProto& p, DataType dtype,
                                   Shape shape) -> Result<Tensor> {
    EXPECT_EQ(p.name(), "w");
    EXPECT_EQ(dtype, DataType::kFloat);
    return Tensor::FromVector<float>(shape, {7.0f, 8.0f});
  };
  EXPECT_EQ(Values<float>(*TensorFromProto(proto, &reader)), (std::vector<float>{7.0f, 8.0f}));

  const ExternalDataFn wrong = [](const onnx::TensorProto&, DataType, Shape) -> Result<Tensor> {
    return Tensor::FromVector<float>({3}, {1, 2, 3});
  };
  EXPECT_EQ(TensorFromProto(proto, &wrong).status().code(), StatusCode::kInternal);
}

TEST(TensorProtoTest, ExternalDataFileNextToThePb) {
  TempDir dir("tensor_io");
  // Bytes 0..3 are padding; the tensor's 3 int16 values start at offset 4.
  WriteBytes(dir / "data.bin", std::string("\xAA\xAA\xAA\xAA\x01\x00\xFF\xFF\x00\x80", 10));
  onnx::TensorProto proto;
  proto.set_name("e");
  proto.set_data_type(onnx::TensorProto::INT16);
  proto.add_dims(3);
  proto.set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [key, value] : {std::pair{"location", "data.bin"}, {"offset", "4"}, {"length", "6"}}) {
    auto* entry = proto.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  WriteBytes(dir / "e.pb", proto.SerializeAsString());
  Result<Tensor> t = ReadTensorProtoFile(dir / "e.pb");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(Values<int16_t>(*t), (std::vector<int16_t>{1, -1, -32768}));

  proto.mutable_external_data(1)->set_value("6");  // 6 + 6 > 10 bytes
  WriteBytes(dir / "bad.pb", proto.SerializeAsString());
  Result<Tensor> bad = ReadTensorProtoFile(dir / "bad.pb");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(bad.status().message().find(
                "offset 6 + length 6 is beyond the end of file 'data.bin' (10 bytes)"),
            std::string::npos)
      << bad.status().message();
}

// A .pb tensor file (an --input file, a test data set) keeps its external data inside its own
// folder: no "..", no absolute path, no link leading out, no named pipe; nothing outside is read.
TEST(TensorProtoTest, PbExternalDataCannotLeaveItsFolder) {
  TempDir root("tensor_io");
  // root/outside/secret.bin must stay unread; the tensor file is root/data/e.pb.
  fs::create_directories(root / "outside");
  fs::create_directories(root / "data");
  WriteBytes(root / "outside" / "secret.bin", std::string(8, 'S'));
  fs::create_symlink(root / "outside" / "secret.bin", root / "data" / "link.bin");
  ASSERT_EQ(::mkfifo((root / "data" / "pipe.bin").c_str(), 0600), 0);
  const fs::path dir = root / "data";
  const std::pair<std::string, std::string> cases[] = {
      {"../../etc/passwd", "leaves the model's folder"},
      {"../outside/secret.bin", "leaves the model's folder"},
      {"/etc/passwd", "is an absolute path"},
      {"link.bin", "outside the model's folder"},
      {"pipe.bin", "is not a regular file (a named pipe)"},
  };
  for (const auto& [location, expected] : cases) {
    onnx::TensorProto proto;
    proto.set_name("e");
    proto.set_data_type(onnx::TensorProto::UINT8);
    proto.add_dims(8);
    proto.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* entry = proto.add_external_data();
    entry->set_key("location");
    entry->set_value(location);
    WriteBytes(dir / "e.pb", proto.SerializeAsString());
    Result<Tensor> t = ReadTensorProtoFile(dir / "e.pb");
    ASSERT_FALSE(t.ok()) << location;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidModel) << location;
    EXPECT_NE(t.status().message().find(expected), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("location '" + location + "'"), std::string::npos)
        << t.status().message();
  }
}

TEST(TensorProtoTest, PbFileThatIsANamedPipeIsRefused) {
  TempDir dir("tensor_io");
  ASSERT_EQ(::mkfifo((dir / "x.pb").c_str(), 0600), 0);
  Result<Tensor> t = ReadTensorProtoFile(dir / "x.pb");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kIoError);
  EXPECT_NE(t.status().message().find("x.pb': not a regular file (a named pipe)"),
            std::string::npos)
      << t.status().message();
}

TEST(TensorProtoTest, SparseLinearAndCoordinateIndices) {
  onnx::SparseTensorProto sparse;
  sparse.add_dims(2);
  sparse.add_dims(3);
  onnx::TensorProto* values = sparse.mutable_values();
  values->set_name("sp");
  values->set_data_type(onnx::TensorProto::FLOAT);
  values->add_dims(2);
  values->add_float_data(5.0f);
  values->add_float_data(-1.0f);
  onnx::TensorProto* indices = sparse.mutable_indices();
  indices->set_data_type(onnx::TensorProto::INT64);
  indices->add_dims(2);
  indices->add_int64_data(1);  // (0,1)
  indices->add_int64_data(5);  // (1,2)
  Tensor dense = *SparseTensorToDense(sparse);
  EXPECT_EQ(dense.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(dense), (std::vector<float>{0, 5, 0, 0, 0, -1}));

  // The same entries as [NNZ, rank] coordinates.
  indices->clear_dims();
  indices->clear_int64_data();
  indices->add_dims(2);
  indices->add_dims(2);
  for (int v : {0, 1, 1, 2}) indices->add_int64_data(v);
  EXPECT_EQ(Values<float>(*SparseTensorToDense(sparse)), (std::vector<float>{0, 5, 0, 0, 0, -1}));

  indices->set_int64_data(3, 3);  // column 3 of a 3-column tensor
  Result<Tensor> out_of_range = SparseTensorToDense(sparse);
  EXPECT_EQ(out_of_range.status().code(), StatusCode::kInvalidModel);
  EXPECT_EQ(out_of_range.status().message(),
            "sparse tensor 'sp': index 1 has coordinate 3 on axis 1, outside [0, 3) for dense "
            "shape [2,3]");

  indices->clear_dims();
  indices->clear_int64_data();
  indices->add_dims(2);
  indices->add_int64_data(0);
  indices->add_int64_data(6);
  EXPECT_EQ(SparseTensorToDense(sparse).status().message(),
            "sparse tensor 'sp': index 1 is 6, outside [0, 6) for dense shape [2,3]");

  indices->clear_dims();
  indices->add_dims(3);
  indices->add_int64_data(2);
  EXPECT_EQ(SparseTensorToDense(sparse).status().message(),
            "sparse tensor 'sp': indices int64[3] fit neither [NNZ] = [2] nor [NNZ, rank] = [2,2] "
            "for 2 values and dense shape [2,3]");
}

TEST(TensorProtoTest, SparseStrings) {
  onnx::SparseTensorProto sparse;
  sparse.add_dims(3);
  onnx::TensorProto* values = sparse.mutable_values();
  values->set_data_type(onnx::TensorProto::STRING);
  values->add_dims(1);
  values->add_string_data("mid");
  onnx::TensorProto* indices = sparse.mutable_indices();
  indices->set_data_type(onnx::TensorProto::INT64);
  indices->add_dims(1);
  indices->add_int64_data(1);
  EXPECT_EQ(Values<std::string>(*SparseTensorToDense(sparse)),
            (std::vector<std::string>{"", "mid", ""}));
}

// ---- SequenceProto / OptionalProto -----------------------------------------------------------

TEST(ValueProtoTest, SequenceAndOptionalRoundTrip) {
  TempDir dir("tensor_io");
  const OnnxValue seq =
      OnnxValue::Sequence({OnnxValue::FromTensor(*Tensor::FromVector<int64_t>({2}, {1, 2})),
                           OnnxValue::FromTensor(*Tensor::FromVector<int64_t>({3}, {3, 4, 5}))});
  ASSERT_TRUE(WriteSequenceProtoFile(dir / "seq.pb", seq, "s").ok());
  Result<OnnxValue> back = ReadSequenceProtoFile(dir / "seq.pb");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->kind, OnnxValue::Kind::kSequence);
  EXPECT_EQ(back->name, "s");
  EXPECT_EQ(back->Description(), "seq(int64[2], int64[3])");
  EXPECT_EQ(Values<int64_t>(back->elements[1].tensor), (std::vector<int64_t>{3, 4, 5}));

  const OnnxValue empty_seq = OnnxValue::Sequence({});
  ASSERT_TRUE(WriteSequenceProtoFile(dir / "empty_seq.pb", empty_seq, "e").ok());
  EXPECT_EQ(ReadSequenceProtoFile(dir / "empty_seq.pb")->Description(), "seq()");

  const OnnxValue nested = OnnxValue::Optional(
      OnnxValue::Sequence({OnnxValue::Sequence({OnnxValue::FromTensor(Sample(DataType::kString))}),
                           OnnxValue::Sequence({})}));
  ASSERT_TRUE(WriteOptionalProtoFile(dir / "opt.pb", nested, "o").ok());
  Result<OnnxValue> opt = ReadOptionalProtoFile(dir / "opt.pb");
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  EXPECT_TRUE(opt->has_value);
  EXPECT_EQ(opt->Description(), "optional(seq(seq(string[2,3]), seq()))");
  EXPECT_TRUE(
      SameContents(opt->elements[0].elements[0].elements[0].tensor, Sample(DataType::kString)));

  ASSERT_TRUE(WriteOptionalProtoFile(dir / "none.pb", OnnxValue::EmptyOptional(), "n").ok());
  Result<OnnxValue> none = ReadOptionalProtoFile(dir / "none.pb");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->kind, OnnxValue::Kind::kOptional);
  EXPECT_FALSE(none->has_value);
  EXPECT_EQ(none->Description(), "optional(none)");

  const OnnxValue seq_of_optionals =
      OnnxValue::Sequence({OnnxValue::EmptyOptional(),
                           OnnxValue::Optional(OnnxValue::FromTensor(Tensor::Scalar(2.5f)))});
  ASSERT_TRUE(WriteSequenceProtoFile(dir / "so.pb", seq_of_optionals, "so").ok());
  EXPECT_EQ(ReadSequenceProtoFile(dir / "so.pb")->Description(),
            "seq(optional(none), optional(float[]))");
}

TEST(ValueProtoTest, WriteErrors) {
  TempDir dir("tensor_io");
  const OnnxValue mixed = OnnxValue::Sequence(
      {OnnxValue::FromTensor(Tensor::Scalar(1.0f)), OnnxValue::EmptyOptional()});
  Status s = WriteSequenceProtoFile(dir / "m.pb", mixed, "m");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("element 0 is float[], element 1 is optional(none)"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(
      WriteOptionalProtoFile(dir / "t.pb", OnnxValue::FromTensor(Tensor::Scalar(1)), "t").code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteTensorProtoFile(dir / "no_such_dir" / "x.pb", Tensor::Scalar(1), "x").code(),
            StatusCode::kIoError);
}

TEST(ValueProtoTest, ReadErrors) {
  onnx::OptionalProto missing;
  missing.set_name("o");
  missing.set_elem_type(onnx::OptionalProto::TENSOR);
  Result<OnnxValue> r = ParseOptionalProto(missing.SerializeAsString(), "o.pb");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "o.pb: optional 'o': elem_type is TENSOR but tensor_value is missing");

  onnx::SequenceProto bad_element;
  bad_element.set_name("s");
  bad_element.set_elem_type(onnx::SequenceProto::TENSOR);
  onnx::TensorProto* first = bad_element.add_tensor_values();
  first->set_data_type(onnx::TensorProto::FLOAT);
  first->add_float_data(1.0f);
  onnx::TensorProto* second = bad_element.add_tensor_values();
  second->set_name("t1");
  second->set_data_type(onnx::TensorProto::FLOAT);
  second->add_dims(2);
  EXPECT_EQ(ParseSequenceProto(bad_element.SerializeAsString(), "s.pb").status().message(),
            "s.pb: sequence 's': element 1: tensor 't1': dims [2] of float need 2 values in "
            "float_data, got 0");

  onnx::SequenceProto maps;
  maps.set_elem_type(onnx::SequenceProto::MAP);
  EXPECT_EQ(ParseSequenceProto(maps.SerializeAsString()).status().code(),
            StatusCode::kNotImplemented);

  EXPECT_EQ(ParseTensorProto("\xff\xff\xff", "junk.pb").status().message(),
            "junk.pb: not a valid TensorProto (3 bytes; protobuf parsing failed)");
  EXPECT_EQ(ReadTensorProtoFile("/nonexistent/x.pb").status().code(), StatusCode::kIoError);
  EXPECT_EQ(ReadTensorProtoFile("/nonexistent/x.pb").status().message(),
            "file '/nonexistent/x.pb': cannot open: No such file or directory");
  EXPECT_EQ(ReadTestDataFile("/nonexistent/x.pb", TypeInfo::Kind::kUnknown).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadTestDataFile("/nonexistent/x.pb", TypeInfo::Kind::kMap).status().code(),
            StatusCode::kNotImplemented);
}

TEST(ValueProtoTest, TestDataFileAsSparseTensor) {
  TempDir dir("tensor_io");
  onnx::SparseTensorProto sparse;
  sparse.add_dims(4);
  sparse.mutable_values()->set_name("v");
  sparse.mutable_values()->set_data_type(onnx::TensorProto::INT32);
  sparse.mutable_values()->add_dims(1);
  sparse.mutable_values()->add_int32_data(9);
  sparse.mutable_indices()->set_data_type(onnx::TensorProto::INT64);
  sparse.mutable_indices()->add_dims(1);
  sparse.mutable_indices()->add_int64_data(2);
  WriteBytes(dir / "sp.pb", sparse.SerializeAsString());
  Result<OnnxValue> v = ReadTestDataFile(dir / "sp.pb", TypeInfo::Kind::kSparseTensor);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Values<int32_t>(v->tensor), (std::vector<int32_t>{0, 0, 9, 0}));
}

// ---- npy -------------------------------------------------------------------------------------

TEST(NpyTest, ReadsNumpyFiles) {
  Result<Tensor> f4 = ParseNpy(FromHex(kF4Npy));
  ASSERT_TRUE(f4.ok()) << f4.status().ToString();
  EXPECT_EQ(f4->shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(*f4), (std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, 65504.0f}));

  // Big endian, column-major on disk; arange(6).reshape(2,3) in C order after reading.
  Result<Tensor> fortran = ParseNpy(FromHex(kBigEndianFortranI4Npy));
  ASSERT_TRUE(fortran.ok()) << fortran.status().ToString();
  EXPECT_EQ(fortran->shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<int32_t>(*fortran), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));

  Result<Tensor> v2 = ParseNpy(FromHex(kV2F2Npy));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->dtype(), DataType::kFloat16);
  EXPECT_EQ(Bits16(*v2), (std::vector<uint16_t>{0x3C00, 0xB800, 0x7BFF}));

  Result<Tensor> v3 = ParseNpy(FromHex(kV3U2Npy));
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ(v3->shape(), (Shape{1, 2}));
  EXPECT_EQ(Values<uint16_t>(*v3), (std::vector<uint16_t>{1, 65535}));
}

TEST(NpyTest, WritesExactlyWhatNumpyWrites) {
  Tensor t = *Tensor::FromVector<float>({2, 3}, {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, 65504.0f});
  Result<std::string> bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(*bytes, FromHex(kF4Npy));
}

TEST(NpyTest, RoundTripEveryNumpyDtype) {
  TempDir dir("tensor_io");
  for (DataType dtype : AllTypes()) {
    if (dtype == DataType::kString || dtype == DataType::kBFloat16 || IsFloat8(dtype) ||
        IsPacked4Bit(dtype)) {
      continue;
    }
    const Tensor original = Sample(dtype);
    Result<std::string> bytes = SerializeNpy(original);
    ASSERT_TRUE(bytes.ok()) << DataTypeName(dtype) << ": " << bytes.status().ToString();
    EXPECT_EQ(bytes->size() % 64, original.byte_size() % 64) << "data starts at a 64-byte boundary";
    Result<Tensor> back = ParseNpy(*bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(SameContents(original, *back)) << DataTypeName(dtype);

    const fs::path path = dir / (std::string(DataTypeName(dtype)) + ".npy");
    ASSERT_TRUE(WriteNpy(path, original).ok());
    Result<Tensor> from_file = ReadNpy(path);
    ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
    EXPECT_TRUE(SameContents(original, *from_file)) << DataTypeName(dtype);
  }
  // Scalars and empty arrays keep their shapes: () and (0, 3).
  for (const Tensor& t :
       {Tensor::Scalar<int16_t>(-3), *Tensor::Allocate(DataType::kFloat, {0, 3})}) {
    Result<Tensor> back = ParseNpy(*SerializeNpy(t));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(SameContents(t, *back)) << t.Description();
  }
  // Strided tensors are written in C order.
  std::vector<uint8_t> base = {1, 2, 3, 4, 5, 6};
  Tensor view = Tensor::BorrowStrided(DataType::kUint8, {3, 2}, {1, 3}, base.data());
  EXPECT_EQ(Values<uint8_t>(*ParseNpy(*SerializeNpy(view))),
            (std::vector<uint8_t>{1, 4, 2, 5, 3, 6}));
}

TEST(NpyTest, LargeHeaderUsesVersion2) {
  // A rank-25000 shape of ones ("1, " each) needs a header over 65535 bytes.
  Tensor t = *Tensor::Allocate(DataType::kInt8, Shape(25000, 1));
  std::string bytes = *SerializeNpy(t);
  EXPECT_EQ(bytes[6], 2);
  Result<Tensor> back = ParseNpy(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->rank(), 25000u);
}

TEST(NpyTest, WriteRejectsTypesNumpyLacks) {
  Tensor bf16 = *Tensor::Allocate(DataType::kBFloat16, {2});
  Result<std::string> r = SerializeNpy(bf16);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "bfloat16 has no numpy dtype; write the tensor as .pb, or Cast it to float32 first");
  for (DataType packed : {DataType::kInt4, DataType::kFloat8E5M2}) {
    EXPECT_NE(SerializeNpy(Sample(packed)).status().message().find("has no numpy dtype"),
              std::string::npos);
  }
  TempDir dir("tensor_io");
  Status s = WriteNpy(dir / "b.npy", bf16);
  EXPECT_NE(s.message().find("b.npy': bfloat16 has no numpy dtype"), std::string::npos)
      << s.message();
  EXPECT_EQ(SerializeNpy(Sample(DataType::kString)).status().message(),
            "cannot write string[2,3] as npy: nxrt writes numeric and bool tensors only");
}

// Replaces the header dict of kF4Npy (keeping its length) with `dict`.
std::string F4WithHeader(std::string_view dict) {
  std::string bytes = FromHex(kF4Npy);
  std::string header(dict);
  header.resize(0x76 - 1, ' ');
  header += '\n';
  return bytes.replace(10, 0x76, header);
}

TEST(NpyTest, BadFilesGiveClearErrors) {
  const std::string good = FromHex(kF4Npy);

  Result<Tensor> truncated = ParseNpy(good.substr(0, good.size() - 4), "file 'x.npy'");
  EXPECT_EQ(truncated.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(truncated.status().message(),
            "file 'x.npy': header says shape (2, 3) of <f4 = 24 bytes but only 20 bytes follow");

  EXPECT_EQ(ParseNpy("PK\x03\x04 not npy", "file 'z.npy'").status().message(),
            "file 'z.npy': not an npy file: it starts with bytes [50 4b 03 04 20 6e], expected "
            "[93 4e 55 4d 50 59] (\"\\x93NUMPY\")");
  EXPECT_EQ(ParseNpy("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseNpy(good.substr(0, 8)).status().message(),
            "npy data: truncated: 8 bytes, shorter than the 10-byte npy preamble");
  EXPECT_EQ(ParseNpy(good.substr(0, 60)).status().message(),
            "npy data: header length 118 runs past the end: only 50 bytes follow the preamble");

  std::string version4 = good;
  version4[6] = 4;
  EXPECT_EQ(ParseNpy(version4).status().code(), StatusCode::kNotImplemented);

  Result<Tensor> no_shape = ParseNpy(F4WithHeader("{'descr': '<f4', 'fortran_order': False}"));
  EXPECT_EQ(no_shape.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_shape.status().message().find(": no 'shape' key"), std::string::npos)
      << no_shape.status().message();

  Result<Tensor> garbage = ParseNpy(F4WithHeader("[1, 2, 3]"));
  EXPECT_EQ(garbage.status().message(),
            "npy data: bad npy header \"[1, 2, 3]\": expected '{' at offset 0");

  Result<Tensor> bad_shape =
      ParseNpy(F4WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }"));
  EXPECT_NE(bad_shape.status().message().find("'shape' entries must be integers >= 0"),
            std::string::npos);

  Result<Tensor> unicode =
      ParseNpy(F4WithHeader("{'descr': '<U5', 'fortran_order': False, 'shape': (1,), }"));
  EXPECT_EQ(unicode.status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(unicode.status().message(),
            "npy data: dtype '<U5' is not supported (nxrt reads f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 "
            "b1 c8 c16); string and object arrays are not supported");

  Result<Tensor> record =
      ParseNpy(F4WithHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"));
  EXPECT_EQ(record.status().code(), StatusCode::kNotImplemented);

  Result<Tensor> huge = ParseNpy(F4WithHeader(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"));
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);

  EXPECT_EQ(ReadNpy("/nonexistent/a.npy").status().code(), StatusCode::kIoError);
}

TEST(NpyTest, TrailingBytesAreIgnoredAndBoolsNormalised) {
  std::string two = FromHex(kF4Npy) + FromHex(kF4Npy);
  EXPECT_EQ(ParseNpy(two)->element_count(), 6);

  std::string bools = F4WithHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }");
  bools.resize(128);
  bools += std::string("\x00\x01\x07", 3);
  EXPECT_EQ(Values<bool>(*ParseNpy(bools)), (std::vector<bool>{false, true, true}));
}

// ---- npz -------------------------------------------------------------------------------------

TEST(NpzTest, ReadsNumpyArchives) {
  Result<NamedTensors> stored = ParseNpz(FromHex(kStoredNpz));
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[0].first, "a");
  EXPECT_EQ(Values<int64_t>((*stored)[0].second), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ((*stored)[1].first, "flags");
  EXPECT_EQ(Values<bool>((*stored)[1].second), (std::vector<bool>{true, false}));

  Result<NamedTensors> deflated = ParseNpz(FromHex(kDeflateNpz));
  ASSERT_TRUE(deflated.ok()) << deflated.status().ToString();
  ASSERT_EQ(deflated->size(), 2u);
  EXPECT_EQ((*deflated)[0].first, "x");
  EXPECT_EQ((*deflated)[0].second.shape(), (Shape{3, 4}));
  EXPECT_EQ(Values<double>((*deflated)[0].second),
            (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ((*deflated)[1].first, "y");
  EXPECT_EQ((*deflated)[1].second.rank(), 0u);
  EXPECT_EQ(Values<uint8_t>((*deflated)[1].second), (std::vector<uint8_t>{7}));
}

TEST(NpzTest, WrittenCrcsAndOffsetsAreValid) {
  NamedTensors tensors = {{"first", Sample(DataType::kInt32)}, {"second", Sample(DataType::kBool)}};
  const std::string zip = *SerializeNpz(tensors);
  // Walk the local headers by hand: signature, CRC (offset 14) over the stored data.
  size_t at = 0;
  for (const auto& [name, tensor] : tensors) {
    ASSERT_EQ(zip.substr(at, 4), "PK\x03\x04");
    const std::string npy = *SerializeNpy(tensor);
    ASSERT_EQ(zip.substr(at + 30, name.size() + 4), name + ".npy");
    const size_t data_at = at + 30 + name.size() + 4;
    EXPECT_EQ(zip.substr(data_at, npy.size()), npy);
    uint32_t stored_crc = 0;
    for (int i = 3; i >= 0; --i)
      stored_crc = stored_crc << 8 | static_cast<uint8_t>(zip[at + 14 + i]);
    EXPECT_EQ(stored_crc, Crc32(npy)) << name;
    at = data_at + npy.size();
  }
  EXPECT_EQ(zip.substr(at, 4), "PK\x01\x02");
  EXPECT_EQ(zip.substr(zip.size() - 22, 4), "PK\x05\x06");
}

TEST(NpzTest, RoundTrip) {
  NamedTensors tensors;
  for (DataType dtype : AllTypes()) {
    if (dtype == DataType::kString || dtype == DataType::kBFloat16 || IsFloat8(dtype) ||
        IsPacked4Bit(dtype)) {
      continue;  // no numpy dtype
    }
    tensors.emplace_back(std::string(DataTypeName(dtype)), Sample(dtype));
  }
  tensors.emplace_back("scalar", Tensor::Scalar<double>(0.5));
  tensors.emplace_back("dir/n\xc3\xa4me", *Tensor::Allocate(DataType::kInt32, {0}));
  TempDir dir("tensor_io");
  ASSERT_TRUE(WriteNpz(dir / "all.npz", tensors).ok());
  Result<NamedTensors> back = ReadNpz(dir / "all.npz");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ((*back)[i].first, tensors[i].first);
    EXPECT_TRUE(SameContents((*back)[i].second, tensors[i].second)) << tensors[i].first;
  }
}

TEST(NpzTest, WriteErrors) {
  NamedTensors bad = {{"w", *Tensor::Allocate(DataType::kBFloat16, {1})}};
  EXPECT_EQ(SerializeNpz(bad).status().message(),
            "entry 'w': bfloat16 has no numpy dtype; write the tensor as .pb, or Cast it to "
            "float32 first");
  NamedTensors duplicate = {{"a", Tensor::Scalar(1)}, {"a", Tensor::Scalar(2)}};
  EXPECT_EQ(SerializeNpz(duplicate).status().message(), "duplicate npz entry name 'a'");
  NamedTensors unnamed = {{"", Tensor::Scalar(1)}};
  EXPECT_EQ(SerializeNpz(unnamed).status().code(), StatusCode::kInvalidArgument);
}

TEST(NpzTest, BadArchivesGiveClearErrors) {
  const std::string stored = FromHex(kStoredNpz);

  EXPECT_EQ(ParseNpz("hello", "file 'a.npz'").status().message(),
            "file 'a.npz': not a zip archive: 5 bytes, shorter than the 22-byte "
            "end-of-central-directory record");
  EXPECT_EQ(ParseNpz(FromHex(kF4Npy), "file 'a.npz'").status().message(),
            "file 'a.npz': not a zip archive: no end-of-central-directory record (50 4b 05 06) in "
            "the last 152 bytes; the data is a single .npy array, read it with ReadNpy");

  // Cut in the middle: the end record is gone.
  EXPECT_EQ(ParseNpz(stored.substr(0, 300)).status().code(), StatusCode::kInvalidArgument);

  // Keep the end record but drop bytes before it: the directory offset points past the data.
  std::string shifted = stored.substr(0, 0x18c - 50) + stored.substr(0x18c);
  EXPECT_NE(ParseNpz(shifted).status().message().find("lies outside the"), std::string::npos)
      << ParseNpz(shifted).status().message();

  // Flip one data byte of entry 'a' (its first int64 value; the entry's data starts after the
  // 30-byte local header, "a.npy" and a 20-byte zip64 extra field, at 0x37, and the npy header
  // takes 128 bytes): the CRC no longer matches. CRC values from python's zlib.crc32.
  std::string corrupt = stored;
  corrupt[0x37 + 128] ^= 0x40;
  EXPECT_EQ(ParseNpz(corrupt).status().message(),
            "npz data: entry 'a.npy': CRC-32 of the data is a8896b09, the archive says 8e5591bc");

  // Claim bzip2 (method 12) in the central directory entry of 'a'.
  std::string bzip2 = stored;
  bzip2[0x18c + 10] = 12;
  EXPECT_EQ(ParseNpz(bzip2).status().message(),
            "npz data: entry 'a.npy': compression method 12 (bzip2) is not supported (nxrt reads "
            "stored (0) and deflate (8))");

  // Corrupt the deflate stream of entry 'x'.
  std::string deflate = FromHex(kDeflateNpz);
  for (size_t i = 0x2d; i < 0x2d + 20; ++i) deflate[i] = static_cast<char>(0xFF);
  Result<NamedTensors> bad_deflate = ParseNpz(deflate);
  EXPECT_EQ(bad_deflate.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_deflate.status().message().find("entry 'x.npy': "), std::string::npos)
      << bad_deflate.status().message();

  // Entry 'y' claims 2^31 - 1 uncompressed bytes from 67 compressed ones (its central directory
  // entry is at 0x14a; the uncompressed size at +24).
  std::string bomb = FromHex(kDeflateNpz);
  for (int i = 0; i < 4; ++i) bomb[0x14a + 24 + i] = static_cast<char>(i < 3 ? 0xFF : 0x7F);
  EXPECT_EQ(ParseNpz(bomb).status().message(),
            "npz data: entry 'y.npy': declares 2147483647 bytes, more than deflate can produce "
            "from 67 compressed bytes");

  // An entry that is not npy data (with a matching CRC, patched into both headers).
  NamedTensors one = {{"a", Tensor::Scalar<int8_t>(1)}};
  std::string archive = *SerializeNpz(one);
  const size_t data_at = 30 + 5;  // after the local header and "a.npy"
  const size_t data_size = archive.size() - data_at - (46 + 5) - 22;
  archive[data_at] = 'X';
  const uint32_t crc = Crc32(std::string_view(archive).substr(data_at, data_size));
  for (size_t at : {size_t{14}, data_at + data_size + 16}) {
    for (int i = 0; i < 4; ++i) archive[at + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  }
  Result<NamedTensors> not_npy = ParseNpz(archive);
  EXPECT_NE(not_npy.status().message().find("entry 'a.npy': not an npy file"), std::string::npos)
      << not_npy.status().message();
}

// Every parser must return (a value or an error) on damaged input, never crash or read out of
// bounds; the sanitizer build (NXRT_SANITIZE) checks the latter. Fixed seed, bounded work.
TEST(DamagedInputTest, ParsersSurviveMutations) {
  onnx::SequenceProto seq;
  seq.set_elem_type(onnx::SequenceProto::TENSOR);
  ASSERT_TRUE(TensorToProto(Sample(DataType::kFloat), "a", seq.add_tensor_values()).ok());
  ASSERT_TRUE(TensorToProto(Sample(DataType::kString), "b", seq.add_tensor_values()).ok());
  const std::vector<std::pair<std::string, int>> inputs = {
      {FromHex(kF4Npy), 0},      {FromHex(kBigEndianFortranI4Npy), 0},
      {FromHex(kV2F2Npy), 0},    {FromHex(kStoredNpz), 1},
      {FromHex(kDeflateNpz), 1}, {seq.SerializeAsString(), 2}};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int accepted = 0;
  for (const auto& [original, kind] : inputs) {
    for (int round = 0; round < 1500; ++round) {
      std::string bytes = original;
      const int flips = 1 + static_cast<int>(next() % 4);
      for (int f = 0; f < flips; ++f) bytes[next() % bytes.size()] = static_cast<char>(next());
      if (next() % 4 == 0) bytes.resize(next() % bytes.size());
      bool ok = false;
      if (kind == 0) ok = ParseNpy(bytes).ok();
      if (kind == 1) ok = ParseNpz(bytes).ok();
      if (kind == 2) ok = ParseSequenceProto(bytes).ok();
      accepted += ok ? 1 : 0;
    }
  }
  // Some mutations only touch data bytes and still parse; most are rejected.
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 6 * 1500);
}

// ---- python interoperability (skipped when /usr/bin/python3 lacks numpy or onnx) -------------

bool PythonHasNumpyAndOnnx() {
  return std::system("/usr/bin/python3 -c 'import numpy, onnx' >/dev/null 2>&1") == 0;
}

TEST(PythonInteropTest, NumpyLoadsOurNpzAndNpy) {
  if (!PythonHasNumpyAndOnnx()) GTEST_SKIP() << "/usr/bin/python3 with numpy and onnx needed";
  TempDir dir("tensor_io");
  NamedTensors tensors = {
      {"f", *Tensor::FromVector<float>({2, 2}, {1.0f, -0.5f, 3.0f, 1e10f})},
      {"h", *Tensor::FromVector<Float16>({2}, {Float16(1.0f), Float16(-2.0f)})},
      {"b", *Tensor::FromVector<bool>({3}, {true, false, true})},
      {"i", Tensor::Scalar<int64_t>(-42)},
  };
  ASSERT_TRUE(WriteNpz(dir / "t.npz", tensors).ok());
  ASSERT_TRUE(WriteNpy(dir / "t.npy", tensors[0].second).ok());
  const std::string script =
      "import numpy as np, sys\n"
      "z = np.load(sys.argv[1])\n"
      "assert sorted(z.files) == ['b', 'f', 'h', 'i'], z.files\n"
      "assert z['f'].dtype == np.float32 and z['f'].tolist() == [[1.0, -0.5], [3.0, 1e10]]\n"
      "assert z['h'].dtype == np.float16 and z['h'].tolist() == [1.0, -2.0]\n"
      "assert z['b'].dtype == np.bool_ and z['b'].tolist() == [True, False, True]\n"
      "assert z['i'].shape == () and int(z['i']) == -42\n"
      "assert (np.load(sys.argv[2]) == z['f']).all()\n";
  WriteBytes(dir / "check.py", script);
  const std::string command = "/usr/bin/python3 " + (dir / "check.py").string() + " " +
                              (dir / "t.npz").string() + " " + (dir / "t.npy").string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

TEST(PythonInteropTest, PbAndNumpyAgreeOnTestData) {
  if (!PythonHasNumpyAndOnnx()) GTEST_SKIP() << "/usr/bin/python3 with numpy and onnx needed";
  TempDir dir("tensor_io");
  // Python converts each .pb with onnx.numpy_helper.to_array and np.save; nxrt reads both.
  const std::vector<std::string> files = {
      "node/test_abs/test_data_set_0/input_0.pb",
      "node/test_castlike_FLOAT16_to_FLOAT/test_data_set_0/input_0.pb",
      "node/test_mod_uint32/test_data_set_0/output_0.pb",
      "node/test_min_int16/test_data_set_0/output_0.pb",
      "node/test_min_uint64/test_data_set_0/output_0.pb",
      "node/test_reduce_log_sum_exp_keepdims_random/test_data_set_0/output_0.pb",
      "node/test_and2d/test_data_set_0/output_0.pb",
      "node/test_clip_default_int8_max/test_data_set_0/output_0.pb",
  };
  const fs::path root = "/usr/share/libonnx-testdata/data";
  const std::string script =
      "import onnx, numpy as np, sys\n"
      "from onnx import numpy_helper\n"
      "for i, f in enumerate(sys.argv[2:]):\n"
      "    t = onnx.TensorProto()\n"
      "    t.ParseFromString(open(f, 'rb').read())\n"
      "    np.save(sys.argv[1] + '/' + str(i) + '.npy', numpy_helper.to_array(t))\n";
  WriteBytes(dir / "convert.py", script);
  std::string command = "/usr/bin/python3 ";
  command += (dir / "convert.py").string();
  command += " ";
  command += (dir / "").string();
  for (const std::string& f : files) {
    command += ' ';
    command += (root / f).string();
  }
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  for (size_t i = 0; i < files.size(); ++i) {
    Result<Tensor> pb = ReadTensorProtoFile(root / files[i]);
    ASSERT_TRUE(pb.ok()) << pb.status().ToString();
    Result<Tensor> npy = ReadNpy(dir / (std::to_string(i) + ".npy"));
    ASSERT_TRUE(npy.ok()) << npy.status().ToString();
    EXPECT_TRUE(SameContents(*pb, *npy))
        << files[i] << ": " << pb->Description() << " vs " << npy->Description();
  }
}

// ---- ONNX test data --------------------------------------------------------------------------

const fs::path kTestData = "/usr/share/libonnx-testdata/data";

TEST(OnnxTestDataTest, KnownValues) {
  if (!fs::exists(kTestData)) GTEST_SKIP() << kTestData << " missing (Debian libonnx-testdata)";
  // Values printed by onnx 1.12: numpy_helper.to_array(t).ravel()[:4] (and .view(np.uint16)).
  Tensor abs_in = *ReadTensorProtoFile(kTestData / "node/test_abs/test_data_set_0/input_0.pb");
  EXPECT_EQ(abs_in.Description(), "float[3,4,5]");
  EXPECT_EQ(std::vector<float>(abs_in.data<float>(), abs_in.data<float>() + 4),
            (std::vector<float>{1.7640524f, 0.4001572f, 0.978738f, 2.2408931f}));

  Tensor half = *ReadTensorProtoFile(
      kTestData / "node/test_castlike_FLOAT16_to_FLOAT/test_data_set_0/input_0.pb");
  EXPECT_EQ(half.Description(), "float16[3,4]");
  const std::vector<uint16_t> half_bits = Bits16(half);
  EXPECT_EQ(std::vector<uint16_t>(half_bits.begin(), half_bits.begin() + 4),
            (std::vector<uint16_t>{12178, 14623, 12438, 15247}));

  Tensor strings = *ReadTensorProtoFile(
      kTestData / "node/test_castlike_FLOAT_to_STRING_expanded/test_data_set_0/output_0.pb");
  EXPECT_EQ(strings.Description(), "string[3,4]");
  EXPECT_EQ(std::vector<std::string>(strings.data<std::string>(), strings.data<std::string>() + 4),
            (std::vector<std::string>{"0.9767611", "0.6048455", "0.7392636", "0.039187793"}));

  EXPECT_EQ(Values<uint32_t>(*ReadTensorProtoFile(
                kTestData / "node/test_mod_uint32/test_data_set_0/output_0.pb")),
            (std::vector<uint32_t>{0, 1, 5}));

  Result<OnnxValue> named = ReadTestDataFile(
      kTestData / "node/test_abs/test_data_set_0/input_0.pb", TypeInfo::Kind::kTensor);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->name, "x");
  EXPECT_EQ(named->Description(), "float[3,4,5]");

  // Sequence: two float tensors [1,1,2,2] holding 1,2,3,4 and 2,3,1,5.
  Result<OnnxValue> seq =
      ReadTestDataFile(kTestData / "node/test_identity_sequence/test_data_set_0/input_0.pb",
                       TypeInfo::Kind::kSequence);
  ASSERT_TRUE(seq.ok()) << seq.status().ToString();
  EXPECT_EQ(seq->name, "x");
  EXPECT_EQ(seq->Description(), "seq(float[1,1,2,2], float[1,1,2,2])");
  EXPECT_EQ(Values<float>(seq->elements[1].tensor), (std::vector<float>{2, 3, 1, 5}));

  Result<OnnxValue> empty = ReadTestDataFile(
      kTestData / "node/test_optional_has_element_empty/test_data_set_0/input_0.pb",
      TypeInfo::Kind::kOptional);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_FALSE(empty->has_value);

  Result<OnnxValue> opt_seq = ReadTestDataFile(
      kTestData / "node/test_optional_get_element_sequence/test_data_set_0/input_0.pb",
      TypeInfo::Kind::kOptional);
  ASSERT_TRUE(opt_seq.ok()) << opt_seq.status().ToString();
  EXPECT_EQ(opt_seq->Description(), "optional(seq(int32[4]))");
  EXPECT_EQ(Values<int32_t>(opt_seq->elements[0].elements[0].tensor),
            (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(OnnxTestDataTest, EveryTestDataFileReads) {
  if (!fs::exists(kTestData)) GTEST_SKIP() << kTestData << " missing (Debian libonnx-testdata)";
  std::map<TypeInfo::Kind, int> read;
  int failures = 0;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    for (const fs::directory_entry& test : fs::directory_iterator(kTestData / suite)) {
      // input_N / output_N have the kind the model declares for its N-th graph input that is not
      // an initializer, and for its N-th output.
      Result<Model> model = LoadModelFromFile(test.path() / "model.onnx");
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      const Graph& graph = *model->graph;
      std::vector<TypeInfo::Kind> inputs;
      for (ValueId id : graph.inputs) {
        if (graph.FindInitializer(id) == nullptr) inputs.push_back(graph.values[id].type.kind);
      }
      std::vector<TypeInfo::Kind> outputs;
      for (ValueId id : graph.outputs) outputs.push_back(graph.values[id].type.kind);

      for (const fs::directory_entry& set : fs::directory_iterator(test.path())) {
        if (!set.is_directory() || !set.path().filename().string().starts_with("test_data_set_")) {
          continue;
        }
        for (const fs::directory_entry& file : fs::directory_iterator(set.path())) {
          const std::string name = file.path().filename().string();
          if (file.path().extension() != ".pb") continue;
          const bool is_input = name.starts_with("input_");
          const size_t index = std::stoul(name.substr(is_input ? 6 : 7));
          const std::vector<TypeInfo::Kind>& kinds = is_input ? inputs : outputs;
          ASSERT_LT(index, kinds.size()) << file.path();
          Result<OnnxValue> value = ReadTestDataFile(file.path(), kinds[index]);
          if (!value.ok()) {
            ++failures;
            ADD_FAILURE() << value.status().ToString();
            continue;
          }
          ++read[kinds[index]];
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
  // Counted with
  //   cd /usr/share/libonnx-testdata/data &&
  //   find node pytorch-converted pytorch-operator simple -path '*/test_data_set_*/*.pb' | wc -l
  // which prints 3205,
  // and split by the models' declared kinds with onnx 1.12 in python: 3154 tensors (node 2836,
  // pytorch-converted 164, pytorch-operator 87, simple 67), 43 sequences, 8 optionals.
  EXPECT_EQ(read[TypeInfo::Kind::kTensor], 3154);
  EXPECT_EQ(read[TypeInfo::Kind::kSequence], 43);
  EXPECT_EQ(read[TypeInfo::Kind::kOptional], 8);
  EXPECT_EQ(read[TypeInfo::Kind::kTensor] + read[TypeInfo::Kind::kSequence] +
                read[TypeInfo::Kind::kOptional],
            3205);
}

}  // namespace
}  // namespace nxrt::ir
