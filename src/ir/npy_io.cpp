// ir/npy_io.cpp: NumPy .npy and .npz reading and writing (the NumPy half of tensor_io.h).
//
// Layer: nxrt_ir. The .npy format follows numpy's NEP 1 (format versions 1.0-3.0). The zip
// reader and writer are written here against the PKWARE APPNOTE (local headers, central
// directory, end records, zip64 extra fields); zlib does inflate and CRC-32. Public functions
// catch allocation failures and turn them into kOutOfMemory.
#include "ir/tensor_io.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <set>

#include "ir/io_util.h"

namespace nxrt::ir {
namespace {

// ---- npy ---------------------------------------------------------------------------------------

constexpr std::string_view kNpyMagic = "\x93NUMPY";

struct NpyDtype {
  std::string_view descr;  // as written by SerializeNpy
  DataType dtype;
};

// The descr SerializeNpy writes per type; ParseNpy accepts these kinds in any byte order.
constexpr NpyDtype kNpyDtypes[] = {
    {"<f2", DataType::kFloat16},   {"<f4", DataType::kFloat},       {"<f8", DataType::kDouble},
    {"|i1", DataType::kInt8},      {"<i2", DataType::kInt16},       {"<i4", DataType::kInt32},
    {"<i8", DataType::kInt64},     {"|u1", DataType::kUint8},       {"<u2", DataType::kUint16},
    {"<u4", DataType::kUint32},    {"<u8", DataType::kUint64},      {"|b1", DataType::kBool},
    {"<c8", DataType::kComplex64}, {"<c16", DataType::kComplex128},
};

std::string ShapeAsTuple(const Shape& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ',';
  out += ')';
  return out;
}

std::string HexBytes(std::string_view bytes, size_t max_count) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < std::min(bytes.size(), max_count); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if (i > 0) out += ' ';
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

struct NpyHeader {
  std::string descr;
  DataType dtype = DataType::kUndefined;
  bool swap = false;  // stored in the other byte order than the host's
  bool fortran_order = false;
  Shape shape;
};

// Parses the Python dict literal of an npy header:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class NpyHeaderParser {
 public:
  explicit NpyHeaderParser(std::string_view text) : text_(text) {}

  Result<NpyHeader> Parse() {
    NpyHeader header;
    bool has_descr = false;
    bool has_order = false;
    bool has_shape = false;
    SkipSpace();
    if (!Consume('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      if (!ParseString(&key)) return Error("expected a quoted key");
      SkipSpace();
      if (!Consume(':')) return Error("expected ':' after key '" + key + "'");
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[') {
          return MakeStatus(StatusCode::kNotImplemented,
                            "structured (record) dtypes are not supported: header ", Quoted());
        }
        if (!ParseString(&header.descr)) return Error("'descr' must be a quoted dtype string");
        has_descr = true;
      } else if (key == "fortran_order") {
        if (ConsumeWord("True")) {
          header.fortran_order = true;
        } else if (!ConsumeWord("False")) {
          return Error("'fortran_order' must be True or False");
        }
        has_order = true;
      } else if (key == "shape") {
        NXRT_RETURN_IF_ERROR(ParseShape(&header.shape));
        has_shape = true;
      } else {
        return Error("unexpected key '" + key + "'");
      }
      SkipSpace();
      if (Consume('}')) break;
      if (!Consume(',')) return Error("expected ',' or '}' after the value of '" + key + "'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after '}'");
    if (!has_descr) return Error("no 'descr' key");
    if (!has_order) return Error("no 'fortran_order' key");
    if (!has_shape) return Error("no 'shape' key");
    NXRT_RETURN_IF_ERROR(ResolveDtype(&header));
    return header;
  }

 private:
  static Status ResolveDtype(NpyHeader* header) {
    std::string_view d = header->descr;
    char order = '=';
    if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
      order = d[0];
      d.remove_prefix(1);
    }
    for (const NpyDtype& known : kNpyDtypes) {
      if (known.descr.substr(1) == d) {
        header->dtype = known.dtype;
        const bool big = order == '>' || (order == '=' && std::endian::native == std::endian::big);
        header->swap = DataTypeSize(known.dtype) > 1 &&
                       big != (std::endian::native == std::endian::big) && order != '|';
        return Status::Ok();
      }
    }
    std::string hint;
    if (d == "V2") hint = "; bfloat16 arrays (ml_dtypes) are saved as raw 'V2' and cannot be read";
    if (d == "V1") {
      hint = "; float8 and int4 arrays (ml_dtypes) are saved as raw 'V1' and cannot be read: "
             "save them as TensorProto .pb files";
    }
    if (!d.empty() && (d[0] == 'U' || d[0] == 'S' || d[0] == 'O')) {
      hint = "; string and object arrays are not supported";
    }
    return MakeStatus(StatusCode::kNotImplemented, "dtype '", header->descr,
                      "' is not supported (nxrt reads f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 c8 c16)",
                      hint);
  }

  Status ParseShape(Shape* shape) {
    if (!Consume('(')) return Error("'shape' must be a tuple");
    while (true) {
      SkipSpace();
      if (Consume(')')) return Status::Ok();
      int64_t dim = -1;
      const char* begin = text_.data() + pos_;
      const auto [end, error] = std::from_chars(begin, text_.data() + text_.size(), dim);
      if (error != std::errc() || dim < 0) return Error("'shape' entries must be integers >= 0");
      pos_ += static_cast<size_t>(end - begin);
      Consume('L');  // Python 2 long literals
      shape->push_back(dim);
      SkipSpace();
      if (Consume(')')) return Status::Ok();
      if (!Consume(',')) return Error("expected ',' or ')' in 'shape'");
    }
  }

  bool ParseString(std::string* out) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return false;
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }

  bool ConsumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  std::string Quoted() const {
    constexpr size_t kMax = 200;
    std::string_view shown = text_.substr(0, kMax);
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\n')) shown.remove_suffix(1);
    return "\"" + std::string(shown) + (text_.size() > kMax ? "...\"" : "\"");
  }
  Status Error(const std::string& problem) const {
    return MakeStatus(StatusCode::kInvalidArgument, "bad npy header ", Quoted(), ": ", problem,
                      " at offset ", pos_);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t LoadU16(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8;
}
uint32_t LoadU32(std::string_view b, size_t at) {
  return LoadU16(b, at) | LoadU16(b, at + 2) << 16;
}
uint64_t LoadU64(std::string_view b, size_t at) {
  return static_cast<uint64_t>(LoadU32(b, at)) | static_cast<uint64_t>(LoadU32(b, at + 4)) << 32;
}

Result<Tensor> ParseNpyImpl(std::string_view bytes) {
  if (bytes.size() < kNpyMagic.size() || bytes.substr(0, kNpyMagic.size()) != kNpyMagic) {
    return MakeStatus(StatusCode::kInvalidArgument, "not an npy file: it starts with bytes [",
                      HexBytes(bytes, 6), "], expected [93 4e 55 4d 50 59] (\"\\x93NUMPY\")");
  }
  if (bytes.size() < 10) {
    return MakeStatus(StatusCode::kInvalidArgument, "truncated: ", bytes.size(),
                      " bytes, shorter than the 10-byte npy preamble");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3) {
    return MakeStatus(StatusCode::kNotImplemented, "npy format version ", major, ".", minor,
                      " is not supported (nxrt reads 1.0, 2.0 and 3.0)");
  }
  const size_t preamble = major == 1 ? 10 : 12;
  if (bytes.size() < preamble) {
    return MakeStatus(StatusCode::kInvalidArgument, "truncated: ", bytes.size(),
                      " bytes, shorter than the ", preamble, "-byte npy ", major, ".0 preamble");
  }
  const size_t header_length = major == 1 ? LoadU16(bytes, 8) : LoadU32(bytes, 8);
  if (header_length > bytes.size() - preamble) {
    return MakeStatus(StatusCode::kInvalidArgument, "header length ", header_length,
                      " runs past the end: only ", bytes.size() - preamble,
                      " bytes follow the preamble");
  }
  NXRT_ASSIGN_OR_RETURN(NpyHeader header,
                        NpyHeaderParser(bytes.substr(preamble, header_length)).Parse());

  const size_t element_size = DataTypeSize(header.dtype);
  Result<int64_t> count = ElementCount(header.shape);
  size_t needed = 0;
  if (!count.ok() || __builtin_mul_overflow(static_cast<uint64_t>(*count), element_size, &needed)) {
    return MakeStatus(StatusCode::kInvalidArgument, "header says shape ",
                      ShapeAsTuple(header.shape), " of ", header.descr,
                      ", more bytes than memory can address");
  }
  const std::string_view data = bytes.substr(preamble + header_length);
  if (data.size() < needed) {
    return MakeStatus(StatusCode::kInvalidArgument, "header says shape ",
                      ShapeAsTuple(header.shape), " of ", header.descr, " = ", needed,
                      " bytes but only ", data.size(), " bytes follow");
  }

  NXRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(header.dtype, header.shape));
  std::memcpy(t.mutable_raw_data(), data.data(), needed);
  if (header.swap) SwapElements(&t);
  if (header.dtype == DataType::kBool) {
    auto* b = static_cast<uint8_t*>(t.mutable_raw_data());
    for (size_t i = 0; i < needed; ++i) b[i] = b[i] != 0;
  }
  if (header.fortran_order && t.rank() > 1) {
    // Column-major data: view it with Fortran strides and gather into C order.
    std::vector<int64_t> strides(t.rank(), 1);
    for (size_t axis = 1; axis < t.rank(); ++axis) {
      strides[axis] = strides[axis - 1] * header.shape[axis - 1];
    }
    Tensor view =
        Tensor::BorrowStrided(header.dtype, header.shape, std::move(strides), t.mutable_raw_data());
    return view.Clone();
  }
  return t;
}

Result<std::string> SerializeNpyImpl(const Tensor& tensor) {
  const NpyDtype* npy = nullptr;
  for (const NpyDtype& known : kNpyDtypes) {
    if (known.dtype == tensor.dtype()) npy = &known;
  }
  if (npy == nullptr) {
    if (tensor.dtype() == DataType::kBFloat16 || IsFloat8(tensor.dtype()) ||
        IsPacked4Bit(tensor.dtype())) {
      return MakeStatus(StatusCode::kInvalidArgument, DataTypeName(tensor.dtype()),
                        " has no numpy dtype; write the tensor as .pb, or Cast it to float32 "
                        "first");
    }
    return MakeStatus(StatusCode::kInvalidArgument, "cannot write ", tensor.Description(),
                      " as npy: nxrt writes numeric and bool tensors only");
  }
  Tensor dense = tensor;
  if (!tensor.is_contiguous() || std::endian::native == std::endian::big) {
    NXRT_ASSIGN_OR_RETURN(dense, tensor.Clone());
    if constexpr (std::endian::native == std::endian::big) SwapElements(&dense);
  }
  std::string header = "{'descr': '" + std::string(npy->descr) +
                       "', 'fortran_order': False, 'shape': " + ShapeAsTuple(tensor.shape()) +
                       ", }";
  // Spaces and a final newline pad the header so that the data starts on a 64-byte boundary.
  const auto padded_length = [&](size_t preamble) {
    const size_t total = preamble + header.size() + 1;
    return header.size() + 1 + (64 - total % 64) % 64;
  };
  const size_t preamble = padded_length(10) <= 0xFFFF ? 10 : 12;
  const size_t length = padded_length(preamble);
  header.append(length - header.size() - 1, ' ');
  header += '\n';

  std::string out(kNpyMagic);
  out += static_cast<char>(preamble == 10 ? 1 : 2);
  out += '\0';
  for (size_t i = 0; i < preamble - 8; ++i) out += static_cast<char>((length >> (8 * i)) & 0xFF);
  out += header;
  out.append(static_cast<const char*>(dense.raw_data()), dense.byte_size());
  return out;
}

// ---- zip (npz) ---------------------------------------------------------------------------------

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kEndSize = 22;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kZlibChunk = 1u << 30;

std::string_view CompressionName(uint32_t method) {
  switch (method) {
    case 12: return " (bzip2)";
    case 14: return " (lzma)";
    case 93: return " (zstandard)";
    case 95: return " (xz)";
    default: return "";
  }
}

Result<std::string> Inflate(std::string_view compressed, uint64_t declared_size) {
  // Deflate expands at most 1032:1 (a 258-byte match per 2 bits), so a larger declared size is
  // a lie; refusing it also keeps a tiny archive from demanding a huge buffer.
  constexpr uint64_t kMaxRatio = 1032;
  if (declared_size / kMaxRatio > compressed.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, "declares ", declared_size,
                      " bytes, more than deflate can produce from ", compressed.size(),
                      " compressed bytes");
  }
  // One spare output byte detects data that inflates to more than declared.
  std::string out(static_cast<size_t>(declared_size) + 1, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
    return Status(StatusCode::kInternal, "zlib inflateInit2 failed");
  }
  size_t in_pos = 0;
  size_t out_pos = 0;
  Status status;
  while (true) {
    if (zs.avail_in == 0 && in_pos < compressed.size()) {
      const size_t n = std::min(compressed.size() - in_pos, kZlibChunk);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + in_pos));
      zs.avail_in = static_cast<uInt>(n);
      in_pos += n;
    }
    if (zs.avail_out == 0 && out_pos < out.size()) {
      const size_t n = std::min(out.size() - out_pos, kZlibChunk);
      zs.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
      zs.avail_out = static_cast<uInt>(n);
      out_pos += n;
    }
    const int ret = inflate(&zs, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) break;
    if (ret == Z_OK) continue;
    if (ret == Z_BUF_ERROR && zs.avail_in == 0 && in_pos == compressed.size()) {
      status =
          MakeStatus(StatusCode::kInvalidArgument, "deflate data ends early: ", compressed.size(),
                     " compressed bytes gave ", zs.total_out, " of ", declared_size, " bytes");
    } else if (ret == Z_BUF_ERROR && zs.avail_out == 0 && out_pos == out.size()) {
      status = MakeStatus(StatusCode::kInvalidArgument, "inflates to more than the declared ",
                          declared_size, " bytes");
    } else if (ret == Z_BUF_ERROR) {
      continue;
    } else {
      status = MakeStatus(StatusCode::kInvalidArgument, "corrupt deflate data (zlib: ",
                          zs.msg ? zs.msg : "error " + std::to_string(ret), ")");
    }
    break;
  }
  const uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  NXRT_RETURN_IF_ERROR(status);
  if (produced != declared_size) {
    return MakeStatus(StatusCode::kInvalidArgument, "inflates to ", produced,
                      " bytes, the central directory says ", declared_size);
  }
  out.resize(static_cast<size_t>(declared_size));
  return out;
}

struct ZipEntry {
  std::string name;
  uint32_t flags = 0;
  uint32_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_offset = 0;
};

// Fills 0xFFFFFFFF fields of `entry` from the zip64 extra field (id 1) in `extra`.
Status ApplyZip64Extra(std::string_view extra, ZipEntry* entry) {
  size_t pos = 0;
  while (pos + 4 <= extra.size()) {
    const uint32_t id = LoadU16(extra, pos);
    const uint32_t length = LoadU16(extra, pos + 2);
    if (pos + 4 + length > extra.size()) break;
    if (id == 1) {
      std::string_view field = extra.substr(pos + 4, length);
      size_t at = 0;
      for (uint64_t* value : {&entry->size, &entry->compressed_size, &entry->local_offset}) {
        if (*value != 0xFFFFFFFFu) continue;
        if (at + 8 > field.size()) {
          return MakeStatus(StatusCode::kInvalidArgument, "entry '", entry->name,
                            "': zip64 extra field of ", length, " bytes is too short");
        }
        *value = LoadU64(field, at);
        at += 8;
      }
      return Status::Ok();
    }
    pos += 4 + length;
  }
  return Status::Ok();
}

Result<std::vector<ZipEntry>> ReadCentralDirectory(std::string_view bytes) {
  if (bytes.size() < kEndSize) {
    return MakeStatus(StatusCode::kInvalidArgument, "not a zip archive: ", bytes.size(),
                      " bytes, shorter than the 22-byte end-of-central-directory record");
  }
  const size_t lowest = bytes.size() >= kEndSize + 0xFFFF ? bytes.size() - kEndSize - 0xFFFF : 0;
  size_t end = std::string_view::npos;
  for (size_t pos = bytes.size() - kEndSize + 1; pos-- > lowest;) {
    if (LoadU32(bytes, pos) == kEndSignature &&
        pos + kEndSize + LoadU16(bytes, pos + 20) <= bytes.size()) {
      end = pos;
      break;
    }
  }
  if (end == std::string_view::npos) {
    const bool npy = bytes.substr(0, kNpyMagic.size()) == kNpyMagic;
    return MakeStatus(StatusCode::kInvalidArgument,
                      "not a zip archive: no end-of-central-directory record (50 4b 05 06) in "
                      "the last ",
                      bytes.size() - lowest, " bytes",
                      npy ? "; the data is a single .npy array, read it with ReadNpy" : "");
  }
  if (LoadU16(bytes, end + 4) != 0 || LoadU16(bytes, end + 6) != 0) {
    return Status(StatusCode::kNotImplemented, "multi-disk zip archives are not supported");
  }
  uint64_t count = LoadU16(bytes, end + 10);
  uint64_t directory_size = LoadU32(bytes, end + 12);
  uint64_t directory_offset = LoadU32(bytes, end + 16);
  if (count == 0xFFFF || directory_size == 0xFFFFFFFFu || directory_offset == 0xFFFFFFFFu) {
    if (end < 20 || LoadU32(bytes, end - 20) != kZip64LocatorSignature) {
      return Status(StatusCode::kInvalidArgument,
                    "the end record points to zip64 records, but there is no zip64 locator");
    }
    const uint64_t zip64_end = LoadU64(bytes, end - 20 + 8);
    if (zip64_end > bytes.size() || bytes.size() - zip64_end < 56 ||
        LoadU32(bytes, static_cast<size_t>(zip64_end)) != kZip64EndSignature) {
      return MakeStatus(StatusCode::kInvalidArgument, "zip64 end record at offset ", zip64_end,
                        " is missing or truncated");
    }
    count = LoadU64(bytes, static_cast<size_t>(zip64_end) + 32);
    directory_size = LoadU64(bytes, static_cast<size_t>(zip64_end) + 40);
    directory_offset = LoadU64(bytes, static_cast<size_t>(zip64_end) + 48);
  }
  if (directory_offset > bytes.size() || directory_size > bytes.size() - directory_offset) {
    return MakeStatus(StatusCode::kInvalidArgument, "central directory (", directory_size,
                      " bytes at offset ", directory_offset, ") lies outside the ", bytes.size(),
                      "-byte archive");
  }
  const std::string_view directory =
      bytes.substr(static_cast<size_t>(directory_offset), static_cast<size_t>(directory_size));

  std::vector<ZipEntry> entries;
  size_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (pos + kCentralHeaderSize > directory.size() ||
        LoadU32(directory, pos) != kCentralHeaderSignature) {
      return MakeStatus(StatusCode::kInvalidArgument, "central directory entry ", i, " of ", count,
                        " is missing or truncated at offset ", directory_offset + pos);
    }
    const size_t name_length = LoadU16(directory, pos + 28);
    const size_t extra_length = LoadU16(directory, pos + 30);
    const size_t comment_length = LoadU16(directory, pos + 32);
    const size_t record = kCentralHeaderSize + name_length + extra_length + comment_length;
    if (pos + record > directory.size()) {
      return MakeStatus(StatusCode::kInvalidArgument, "central directory entry ", i,
                        " runs past the directory's end");
    }
    ZipEntry entry;
    entry.flags = LoadU16(directory, pos + 8);
    entry.method = LoadU16(directory, pos + 10);
    entry.crc = LoadU32(directory, pos + 16);
    entry.compressed_size = LoadU32(directory, pos + 20);
    entry.size = LoadU32(directory, pos + 24);
    entry.local_offset = LoadU32(directory, pos + 42);
    entry.name = std::string(directory.substr(pos + kCentralHeaderSize, name_length));
    NXRT_RETURN_IF_ERROR(ApplyZip64Extra(
        directory.substr(pos + kCentralHeaderSize + name_length, extra_length), &entry));
    entries.push_back(std::move(entry));
    pos += record;
  }
  return entries;
}

// The uncompressed bytes of `entry`; stored entries are views into `bytes`, inflated ones are
// kept in `storage`.
Result<std::string_view> EntryData(std::string_view bytes, const ZipEntry& entry,
                                   std::string* storage) {
  if (entry.flags & 1u) {
    return Status(StatusCode::kNotImplemented, "encrypted entries are not supported");
  }
  const uint64_t local = entry.local_offset;
  if (local > bytes.size() || bytes.size() - local < kLocalHeaderSize ||
      LoadU32(bytes, static_cast<size_t>(local)) != kLocalHeaderSignature) {
    return MakeStatus(StatusCode::kInvalidArgument, "no local header at offset ", local);
  }
  const uint64_t data_offset = local + kLocalHeaderSize +
                               LoadU16(bytes, static_cast<size_t>(local) + 26) +
                               LoadU16(bytes, static_cast<size_t>(local) + 28);
  if (data_offset > bytes.size() || entry.compressed_size > bytes.size() - data_offset) {
    return MakeStatus(StatusCode::kInvalidArgument, "data of ", entry.compressed_size,
                      " bytes at offset ", data_offset, " runs past the end of the ", bytes.size(),
                      "-byte archive");
  }
  const std::string_view raw =
      bytes.substr(static_cast<size_t>(data_offset), static_cast<size_t>(entry.compressed_size));
  std::string_view data;
  if (entry.method == 0) {
    if (entry.compressed_size != entry.size) {
      return MakeStatus(StatusCode::kInvalidArgument, "stored entry has compressed size ",
                        entry.compressed_size, " but size ", entry.size);
    }
    data = raw;
  } else if (entry.method == 8) {
    NXRT_ASSIGN_OR_RETURN(*storage, Inflate(raw, entry.size));
    data = *storage;
  } else {
    return MakeStatus(StatusCode::kNotImplemented, "compression method ", entry.method,
                      CompressionName(entry.method),
                      " is not supported (nxrt reads stored (0) and deflate (8))");
  }
  const auto crc =
      static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(data.data()), data.size()));
  if (crc != entry.crc) {
    char message[96];
    std::snprintf(message, sizeof message, "CRC-32 of the data is %08x, the archive says %08x", crc,
                  entry.crc);
    return Status(StatusCode::kInvalidArgument, message);
  }
  return data;
}

Result<NamedTensors> ParseNpzImpl(std::string_view bytes) {
  NXRT_ASSIGN_OR_RETURN(std::vector<ZipEntry> entries, ReadCentralDirectory(bytes));
  NamedTensors tensors;
  for (const ZipEntry& entry : entries) {
    if (entry.name.ends_with('/')) continue;  // a directory
    const std::string label = "entry '" + entry.name + "'";
    std::string storage;
    Result<std::string_view> data = EntryData(bytes, entry, &storage);
    if (!data.ok()) return data.status().WithContext(label);
    Result<Tensor> t = ParseNpyImpl(*data);
    if (!t.ok()) return t.status().WithContext(label);
    std::string key = entry.name;
    if (key.ends_with(".npy")) key.resize(key.size() - 4);
    tensors.emplace_back(std::move(key), std::move(t).value());
  }
  return tensors;
}

void PutU16(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>((v >> 8) & 0xFF));
}
void PutU32(std::string* out, uint32_t v) {
  PutU16(out, v & 0xFFFF);
  PutU16(out, v >> 16);
}

Result<std::string> SerializeNpzImpl(const NamedTensors& tensors) {
  constexpr uint32_t kVersion = 20;    // 2.0: the version that introduced deflate; enough
  constexpr uint32_t kDosDate = 0x21;  // 1980-01-01, the earliest DOS date
  constexpr uint32_t kUtf8Flag = 0x800;
  if (tensors.size() >= 0xFFFF) {
    return MakeStatus(StatusCode::kNotImplemented, tensors.size(),
                      " entries need zip64, which WriteNpz does not write (limit 65534)");
  }
  std::string out;
  std::string directory;
  std::set<std::string_view> seen;
  for (const auto& [name, tensor] : tensors) {
    const std::string label = "entry '" + name + "'";
    if (name.empty()) return Status(StatusCode::kInvalidArgument, "an npz entry has an empty name");
    if (!seen.insert(name).second) {
      return MakeStatus(StatusCode::kInvalidArgument, "duplicate npz entry name '", name, "'");
    }
    Result<std::string> npy = SerializeNpyImpl(tensor);
    if (!npy.ok()) return npy.status().WithContext(label);
    const std::string file_name = name + ".npy";
    if (file_name.size() > 0xFFFF) {
      return MakeStatus(StatusCode::kInvalidArgument, "entry name of ", name.size(),
                        " bytes is longer than zip allows");
    }
    if (out.size() >= 0xFFFFFFFFu || npy->size() >= 0xFFFFFFFFu - out.size()) {
      return MakeStatus(StatusCode::kNotImplemented, label,
                        ": the archive would exceed 4 GiB, which needs zip64 (not written)");
    }
    const uint32_t flags =
        std::any_of(file_name.begin(), file_name.end(), [](char c) { return c & 0x80; }) ? kUtf8Flag
                                                                                         : 0;
    const auto crc =
        static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(npy->data()), npy->size()));
    const auto offset = static_cast<uint32_t>(out.size());
    const auto size = static_cast<uint32_t>(npy->size());
    const auto name_length = static_cast<uint32_t>(file_name.size());

    PutU32(&out, kLocalHeaderSignature);
    PutU16(&out, kVersion);
    PutU16(&out, flags);
    PutU16(&out, 0);  // method: stored
    PutU16(&out, 0);  // time
    PutU16(&out, kDosDate);
    PutU32(&out, crc);
    PutU32(&out, size);
    PutU32(&out, size);
    PutU16(&out, name_length);
    PutU16(&out, 0);  // extra length
    out += file_name;
    out += *npy;

    PutU32(&directory, kCentralHeaderSignature);
    PutU16(&directory, kVersion);  // made by
    PutU16(&directory, kVersion);  // needed
    PutU16(&directory, flags);
    PutU16(&directory, 0);
    PutU16(&directory, 0);
    PutU16(&directory, kDosDate);
    PutU32(&directory, crc);
    PutU32(&directory, size);
    PutU32(&directory, size);
    PutU16(&directory, name_length);
    PutU16(&directory, 0);  // extra
    PutU16(&directory, 0);  // comment
    PutU16(&directory, 0);  // disk
    PutU16(&directory, 0);  // internal attributes
    PutU32(&directory, 0);  // external attributes
    PutU32(&directory, offset);
    directory += file_name;
  }
  if (out.size() + directory.size() >= 0xFFFFFFFFu) {
    return Status(StatusCode::kNotImplemented,
                  "the archive would exceed 4 GiB, which needs zip64 (not written)");
  }
  const auto directory_offset = static_cast<uint32_t>(out.size());
  out += directory;
  PutU32(&out, kEndSignature);
  PutU16(&out, 0);
  PutU16(&out, 0);
  PutU16(&out, static_cast<uint32_t>(tensors.size()));
  PutU16(&out, static_cast<uint32_t>(tensors.size()));
  PutU32(&out, static_cast<uint32_t>(directory.size()));
  PutU32(&out, directory_offset);
  PutU16(&out, 0);  // comment length
  return out;
}

}  // namespace

// ---- npy / npz -----------------------------------------------------------------------------

Result<Tensor> ParseNpy(std::string_view bytes, std::string_view what) {
  return GuardAllocation(what, [&] { return InContext(ParseNpyImpl(bytes), what); });
}

Result<Tensor> ReadNpy(const std::filesystem::path& path) {
  NXRT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
  return ParseNpy(bytes, FileLabel(path));
}

Result<std::string> SerializeNpy(const Tensor& tensor) {
  return GuardAllocation("npy", [&] { return SerializeNpyImpl(tensor); });
}

Status WriteNpy(const std::filesystem::path& path, const Tensor& tensor) {
  const std::string what = FileLabel(path);
  NXRT_ASSIGN_OR_RETURN(std::string bytes, InContext(SerializeNpy(tensor), what));
  return WriteFileBytes(path, bytes);
}

Result<NamedTensors> ParseNpz(std::string_view bytes, std::string_view what) {
  return GuardAllocation(what, [&] { return InContext(ParseNpzImpl(bytes), what); });
}

Result<NamedTensors> ReadNpz(const std::filesystem::path& path) {
  NXRT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
  return ParseNpz(bytes, FileLabel(path));
}

Result<std::string> SerializeNpz(const NamedTensors& tensors) {
  return GuardAllocation("npz", [&] { return SerializeNpzImpl(tensors); });
}

Status WriteNpz(const std::filesystem::path& path, const NamedTensors& tensors) {
  const std::string what = FileLabel(path);
  NXRT_ASSIGN_OR_RETURN(std::string bytes, InContext(SerializeNpz(tensors), what));
  return WriteFileBytes(path, bytes);
}

}  // namespace nxrt::ir
