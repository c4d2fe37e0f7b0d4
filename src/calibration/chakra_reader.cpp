// Reading a Chakra execution trace's bytes (chakra_trace.hpp): varint-length-delimited messages,
// one GlobalMetadata then Nodes, parsed with the classes protoc generates from the vendored
// third_party/chakra/et_def.proto. Built only when protobuf is found (meson.build).
#include <climits>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "ckptsim/calibration/chakra_trace.hpp"
#include "ckptsim/core/error.hpp"
#include "et_def.pb.h"

namespace ckptsim {

namespace {

/// A message's place in the file, for errors: "message 3 (byte 120)".
std::string chakra_where(std::size_t message, std::size_t offset) { return fmt::format("message {} (byte {})", message, offset); }

/// The base-128 varint at `pos` (advanced past it); nullopt at the end of the file.
std::optional<std::uint64_t> read_chakra_varint(std::string_view bytes, std::size_t& pos, const std::string& file, std::size_t message) {
  if (pos == bytes.size()) return std::nullopt;
  const std::size_t begin = pos;
  std::uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    if (pos == bytes.size()) {
      throw InputError(file, chakra_where(message, begin), "a message length (a varint) followed by the message",
                       fmt::format("the file ends inside the varint ({} byte(s))", pos - begin));
    }
    const auto b = static_cast<unsigned char>(bytes[pos++]);
    if (shift == 63 && (b & 0x7E) != 0) {
      throw InputError(file, chakra_where(message, begin), "a message length of at most 64 bits", "a longer varint");
    }
    value |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return value;
    if (shift == 63) throw InputError(file, chakra_where(message, begin), "a varint of at most 10 bytes", "a longer one");
  }
}

/// An integer attribute, whichever of the proto's integer kinds holds it.
std::optional<std::int64_t> chakra_integer_attr(const ChakraProtoMsg::AttributeProto& a, const std::string& file, std::uint64_t node) {
  using A = ChakraProtoMsg::AttributeProto;
  auto too_large = [&](auto v) -> std::int64_t {
    throw InputError(file, fmt::format("node {}", node), fmt::format("attr {}: an integer of at most 2^63-1", a.name()), std::to_string(v));
  };
  switch (a.value_case()) {
    case A::kInt32Val: return a.int32_val();
    case A::kInt64Val: return a.int64_val();
    case A::kUint32Val: return a.uint32_val();
    case A::kUint64Val:
      return a.uint64_val() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? too_large(a.uint64_val())
                                                                                                     : static_cast<std::int64_t>(a.uint64_val());
    case A::kSint32Val: return a.sint32_val();
    case A::kSint64Val: return a.sint64_val();
    case A::kFixed32Val: return a.fixed32_val();
    case A::kFixed64Val:
      return a.fixed64_val() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? too_large(a.fixed64_val())
                                                                                                       : static_cast<std::int64_t>(a.fixed64_val());
    case A::kSfixed32Val: return a.sfixed32_val();
    case A::kSfixed64Val: return a.sfixed64_val();
    default:
      throw InputError(file, fmt::format("node {}", node), fmt::format("attr {}: an integer value (int64_val, ...)", a.name()),
                       fmt::format("value field {}", static_cast<int>(a.value_case())));
  }
}

ChakraNode convert_chakra_node(const ChakraProtoMsg::Node& m, const std::string& file) {
  ChakraNode n;
  n.id = m.id();
  const int type = static_cast<int>(m.type());
  if (type < 0 || type > 7) {
    throw InputError(file, fmt::format("node {}", n.id), "a node type 0..7 (et_def.proto NodeType)", std::to_string(type));
  }
  n.type = static_cast<ChakraNodeType>(type);
  n.data_deps.assign(m.data_deps().begin(), m.data_deps().end());
  n.ctrl_deps.assign(m.ctrl_deps().begin(), m.ctrl_deps().end());
  n.duration_micros = m.duration_micros();
  for (const ChakraProtoMsg::AttributeProto& a : m.attr()) {
    const std::string& name = a.name();
    if (name == "is_cpu_op") {
      // bool_val as Chakra writes it; an integer kind is read as false when 0.
      n.is_cpu_op = a.value_case() == ChakraProtoMsg::AttributeProto::kBoolVal ? a.bool_val() : *chakra_integer_attr(a, file, n.id) != 0;
    } else if (name == "num_ops" || name == "comm_type" || name == "comm_size") {
      const std::optional<std::int64_t> v = chakra_integer_attr(a, file, n.id);
      if (*v < 0) throw InputError(file, fmt::format("node {}", n.id), fmt::format("attr {}: a value >= 0", name), std::to_string(*v));
      (name == "num_ops" ? n.num_ops : name == "comm_type" ? n.comm_type : n.comm_size) = v;
    }
  }
  if (n.comm_type && *n.comm_type > 9) {
    throw InputError(file, fmt::format("node {}", n.id), "attr comm_type 0..9 (et_def.proto CollectiveCommType)", std::to_string(*n.comm_type));
  }
  return n;
}

}  // namespace

bool chakra_reader_available() { return true; }

ChakraTrace parse_chakra_trace(std::string_view bytes, const std::string& file) {
  ChakraTrace trace;
  trace.file = file;
  std::size_t pos = 0, dependencies = 0;
  for (std::size_t message = 0;; ++message) {
    const std::size_t begin = pos;
    const std::optional<std::uint64_t> length = read_chakra_varint(bytes, pos, file, message);
    if (!length) break;
    // protolib.py's decodeMessage reads a zero length as the end of the trace.
    if (*length == 0) {
      if (pos != bytes.size()) {
        throw InputError(file, chakra_where(message, begin), "a message length above 0 (0 ends the trace, Chakra's protolib.py)",
                         fmt::format("0 followed by {} more byte(s)", bytes.size() - pos));
      }
      break;
    }
    if (*length > bytes.size() - pos) {
      throw InputError(file, chakra_where(message, begin), "a message length within the file",
                       fmt::format("{} bytes, {} left in the file", *length, bytes.size() - pos));
    }
    if (*length > static_cast<std::uint64_t>(INT_MAX)) {
      throw InputError(file, chakra_where(message, begin), "a message of at most 2 GiB (protobuf's limit)", fmt::format("{} bytes", *length));
    }
    const char* data = bytes.data() + pos;
    const int size = static_cast<int>(*length);
    pos += *length;
    if (message == 0) {
      ChakraProtoMsg::GlobalMetadata meta;
      if (!meta.ParseFromArray(data, size)) {
        throw InputError(file, chakra_where(message, begin), "a GlobalMetadata message (et_def.proto) first", "bytes that do not parse as one");
      }
      trace.schema = meta.version();
      for (const ChakraProtoMsg::AttributeProto& a : meta.attr())
        if (a.name() == "schema" && a.value_case() == ChakraProtoMsg::AttributeProto::kStringVal) trace.schema = a.string_val();
      continue;
    }
    ChakraProtoMsg::Node node;
    if (!node.ParseFromArray(data, size)) {
      throw InputError(file, chakra_where(message, begin), "a Node message (et_def.proto)", "bytes that do not parse as one");
    }
    if (trace.nodes.size() == kMaxChakraNodes) {
      throw LimitError(fmt::format("{}: more than {} nodes, the limit of a Chakra trace (docs/limits.md)", file, kMaxChakraNodes));
    }
    trace.nodes.push_back(convert_chakra_node(node, file));
    dependencies += trace.nodes.back().data_deps.size() + trace.nodes.back().ctrl_deps.size();
    if (dependencies > kMaxChakraDependencies) {
      throw LimitError(fmt::format("{}: more than {} dependencies, the limit of a Chakra trace (docs/limits.md)", file, kMaxChakraDependencies));
    }
  }
  if (pos == 0) throw InputError(file, "", "a Chakra execution trace (GlobalMetadata, then Node messages)", "an empty file");
  return trace;
}

}  // namespace ckptsim
