#include <poplar/DebugContext.hpp>
#include <poplar/exceptions.hpp>

namespace poplar {

namespace {

// In enumerator order, so a code's name is kErrorCodeNames[code].
const char *const kErrorCodeNames[] = {
    "NONE",
    "UNKNOWN",
    "TRAP",
    "FLOATING_POINT_INVALID_OPERATION",
    "FLOATING_POINT_DIVIDE_BY_ZERO",
    "FLOATING_POINT_OVERFLOW",
    "TILE_MEMORY_BANK_CONFLICT",
    "INVALID_EXCHANGE_CONFIGURATION",
    "INVALID_ADDRESS",
    "INVALID_OPERAND",
    "INVALID_PROGRAM_COUNTER",
    "INVALID_INSTRUCTION",
    "EXCHANGE_ERROR",
    "MEMORY_ERROR",
    "IPUSOFTERR",
    "LINK_DOWN",
    "HOST_LINK_DOWN",
    "HOST_SYNC_TIMEOUT",
    "IPU_MEMORY_FAILURE",
};
constexpr std::size_t kNumErrorCodes = sizeof(kErrorCodeNames) / sizeof(kErrorCodeNames[0]);
static_assert(kNumErrorCodes == static_cast<std::size_t>(ErrorCode::IPU_MEMORY_FAILURE) + 1,
              "one name per ErrorCode");

} // namespace

std::string errorCodeToString(ErrorCode code) {
  const auto index = static_cast<std::size_t>(code);
  if (index >= kNumErrorCodes) throw poplar_error("errorCodeToString: unknown error code " + std::to_string(index));
  return kErrorCodeNames[index];
}

ErrorCode errorCodeFromString(StringRef name) {
  for (std::size_t i = 0; i < kNumErrorCodes; ++i)
    if (name == kErrorCodeNames[i]) return static_cast<ErrorCode>(i);
  throw poplar_error("errorCodeFromString: '" + name.str() + "' names no error code");
}

ErrorLocation::ErrorLocation(unsigned tile) : tile_(tile) {}
unsigned ErrorLocation::getTile() const { return tile_; }

poplar_error::poplar_error(const std::string &s) : poplar_error(s, "poplar_error") {}
poplar_error::poplar_error(const char *s) : poplar_error(std::string(s)) {}
poplar_error::poplar_error(const std::string &s, const char *kind)
    : std::runtime_error(s), type(kind), message_(s) {}

void poplar_error::attachSourceLocation(const DebugContext &debugContext) {
  const std::string where = debugContext.getPathName();
  if (!where.empty()) message_ += " (at '" + where + "')";
}

const char *poplar_error::what() const noexcept { return message_.c_str(); }

graph_object_load_error::graph_object_load_error(const std::string &path, const std::string &error)
    : poplar_error("Cannot load graph object '" + path + "': " + error, "graph_object_load_error"),
      path(path) {}

unknown_field::unknown_field(const std::string &s) : poplar_error(s, "unknown_field") {}
unknown_field::unknown_field(const char *s) : unknown_field(std::string(s)) {}
unknown_field::unknown_field(const std::string &fieldName, const std::string &vertexTypeName)
    : unknown_field("Vertex type '" + vertexTypeName + "' has no field '" + fieldName + "'") {}

index_error::index_error(const std::string &s) : poplar_error(s, "index_error") {}
index_error::index_error(const char *s) : index_error(std::string(s)) {}
index_error::index_error(const std::string &s, std::size_t index)
    : index_error(s + " (index " + std::to_string(index) + ")") {}

no_size_specified::no_size_specified(const std::string &s) : poplar_error(s, "no_size_specified") {}
no_size_specified::no_size_specified(const char *s) : no_size_specified(std::string(s)) {}
no_size_specified::no_size_specified(const std::string &fieldName, const std::string &vertexName)
    : no_size_specified("Field '" + fieldName + "' of vertex '" + vertexName + "' has no size specified") {}

link_error::link_error(const std::string &s, const std::string &log)
    : poplar_error(s, "link_error"), output(log) {}
link_error::link_error(const char *s, const char *log) : link_error(std::string(s), std::string(log)) {}

recoverable_runtime_error::recoverable_runtime_error(RecoveryAction action, const std::string &message)
    : system_runtime_error(message, "recoverable_runtime_error"), action_(action) {}
recoverable_runtime_error::recoverable_runtime_error(RecoveryAction action, const char *message)
    : recoverable_runtime_error(action, std::string(message)) {}
RecoveryAction recoverable_runtime_error::getRecoveryAction() const { return action_; }

symbol_error::symbol_error(const std::string &symbol, const unsigned tile)
    : poplar_error("Symbol '" + symbol + "' cannot be placed on tile " + std::to_string(tile), "symbol_error"),
      symbol(symbol), tile(tile) {}

} // namespace poplar
