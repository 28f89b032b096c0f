#pragma once
// Names of popops::Operation: a readable one (asString) and the fully qualified one
// vertex templates use (templateVertex("popops::Reduce", popops::Operation::ADD) is
// "popops::Reduce<popops::Operation::ADD>").
#include <iosfwd>
#include <string>

#include <popops/Operation.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {

// "Add", "Mul", "Min", "Max", "Logical And", "Logical Or", "Square Add", "Log Add".
inline const char *asString(const popops::Operation &op) {
  static const char *const names[] = {"Add",        "Mul",        "Min",        "Max",
                                      "Logical And", "Logical Or", "Square Add", "Log Add"};
  const unsigned index = static_cast<unsigned>(op);
  if (index >= sizeof(names) / sizeof(names[0])) throw poplibs_error("Unsupported operation type");
  return names[index];
}

template <> struct VertexTemplateToString<popops::Operation> {
  static std::string to_string(const popops::Operation &op) {
    static const char *const names[] = {"ADD",         "MUL",        "MIN",        "MAX",
                                        "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOG_ADD"};
    const unsigned index = static_cast<unsigned>(op);
    if (index >= sizeof(names) / sizeof(names[0])) throw poplibs_error("Unsupported operation type");
    return std::string("popops::Operation::") + names[index];
  }
};

} // namespace poputil
