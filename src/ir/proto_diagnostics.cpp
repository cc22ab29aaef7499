// ir/proto_diagnostics.cpp: a descriptor-guided walk over the protobuf wire format (see
// ir/proto_diagnostics.h).
//
// Layer: nxrt_ir. Wire format: each field is a varint tag (number << 3 | wire type) followed by a
// varint (type 0), 8 bytes (1), a varint length and that many bytes (2), or 4 bytes (5).
#include "ir/proto_diagnostics.h"

#include <cstdint>
#include <map>

#include <google/protobuf/descriptor.h>

namespace nxrt::ir {
namespace {

namespace pb = google::protobuf;

// protobuf's own default nesting limit.
constexpr int kMaxDepth = 100;

// Reads a base-128 varint at `pos`; nullopt when it runs past the end or over 10 bytes.
std::optional<uint64_t> ReadVarint(std::span<const std::byte> bytes, size_t& pos) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64 && pos < bytes.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(bytes[pos++]);
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return value;
  }
  return std::nullopt;
}

// Bytes per value of a packed fixed-width scalar field, 0 for varint-encoded ones.
size_t PackedWidth(const pb::FieldDescriptor& field) {
  switch (field.type()) {
    case pb::FieldDescriptor::TYPE_DOUBLE:
    case pb::FieldDescriptor::TYPE_FIXED64:
    case pb::FieldDescriptor::TYPE_SFIXED64:
      return 8;
    case pb::FieldDescriptor::TYPE_FLOAT:
    case pb::FieldDescriptor::TYPE_FIXED32:
    case pb::FieldDescriptor::TYPE_SFIXED32:
      return 4;
    default:
      return 0;
  }
}

std::optional<ProtoProblem> CheckPacked(const pb::FieldDescriptor& field,
                                        std::span<const std::byte> bytes, size_t base,
                                        const std::string& name) {
  const size_t width = PackedWidth(field);
  if (width > 0) {
    if (bytes.size() % width == 0) return std::nullopt;
    return ProtoProblem{base, name + " holds " + std::to_string(bytes.size()) +
                                  " bytes, not a whole number of " + std::to_string(width) +
                                  "-byte values"};
  }
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t start = pos;
    if (!ReadVarint(bytes, pos)) {
      return ProtoProblem{base, name + " has a cut-off or malformed value at byte " +
                                    std::to_string(base + start)};
    }
  }
  return std::nullopt;
}

std::optional<ProtoProblem> Walk(const pb::Message& prototype, std::span<const std::byte> bytes,
                                 size_t base, const std::string& path, int depth) {
  const pb::Descriptor* descriptor = prototype.GetDescriptor();
  const std::string inside = path.empty() ? "the file" : path;
  std::map<uint64_t, int> occurrences;
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t start = pos;
    const std::string at = " at byte " + std::to_string(base + start);
    std::optional<uint64_t> tag = ReadVarint(bytes, pos);
    if (!tag) return ProtoProblem{base + start, "a field tag" + at + " in " + inside +
                                                    " is cut off or malformed"};
    const uint64_t number = *tag >> 3;
    const uint64_t wire = *tag & 7;
    if (number == 0) {
      return ProtoProblem{base + start, "field number 0" + at + " in " + inside + " is invalid"};
    }
    const pb::FieldDescriptor* field =
        number <= static_cast<uint64_t>(INT32_MAX)
            ? descriptor->FindFieldByNumber(static_cast<int>(number))
            : nullptr;
    // Appended piecewise: `"[" + std::to_string(...)` trips GCC 12's -Wrestrict false positive.
    std::string name = path.empty() ? "" : path + ".";
    if (field) {
      name += field->name();
    } else {
      name += "field ";
      name += std::to_string(number);
    }
    if (field && field->is_repeated()) {
      name += '[';
      name += std::to_string(occurrences[number]++);
      name += ']';
    }
    const std::string where = name + at;

    uint64_t skip = 0;
    switch (wire) {
      case 0:
        if (!ReadVarint(bytes, pos)) {
          return ProtoProblem{base + start, where + " has a cut-off or malformed varint"};
        }
        continue;
      case 1:
        skip = 8;
        break;
      case 5:
        skip = 4;
        break;
      case 2: {
        std::optional<uint64_t> length = ReadVarint(bytes, pos);
        if (!length) {
          return ProtoProblem{base + start, where + " has a cut-off or malformed length"};
        }
        skip = *length;
        break;
      }
      default:
        return ProtoProblem{base + start, where + " has wire type " + std::to_string(wire) +
                                              ", which ONNX files do not use"};
    }
    const size_t remaining = bytes.size() - pos;
    if (skip > remaining) {
      return ProtoProblem{base + start,
                          where + " needs " + std::to_string(skip) + " bytes but only " +
                              std::to_string(remaining) + " remain" +
                              (path.empty() ? ": the file is truncated" : " in " + path)};
    }
    if (wire == 2 && field != nullptr) {
      const std::span<const std::byte> body = bytes.subspan(pos, skip);
      std::optional<ProtoProblem> inner;
      if (field->type() == pb::FieldDescriptor::TYPE_MESSAGE && depth < kMaxDepth) {
        const pb::Message* sub =
            prototype.GetReflection()->GetMessageFactory()->GetPrototype(field->message_type());
        if (sub != nullptr) inner = Walk(*sub, body, base + pos, name, depth + 1);
      } else if (field->is_packable()) {
        inner = CheckPacked(*field, body, base + pos, name);
      }
      if (inner) return inner;
    }
    pos += skip;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ProtoProblem> FindProtoProblem(const google::protobuf::Message& prototype,
                                             std::span<const std::byte> bytes) {
  return Walk(prototype, bytes, 0, "", 0);
}

}  // namespace nxrt::ir
