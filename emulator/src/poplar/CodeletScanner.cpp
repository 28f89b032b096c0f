#include "CodeletScanner.hpp"

#include <cctype>
#include <map>
#include <set>

namespace poplar::detail {

namespace {

// Blanks comments, string and character literals and preprocessor lines,
// keeping newlines.
std::string stripNonCode(const std::string &s) {
  std::string out(s.size(), ' ');
  bool lineStart = true;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      out[i++] = '\n';
      lineStart = true;
      continue;
    }
    if (lineStart && c == '#') { // a directive, with its continuation lines
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') out[i + 1] = '\n', i += 2;
        else ++i;
      }
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) lineStart = false;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? s.size() : end + 2;
      for (; i < stop; ++i)
        if (s[i] == '\n') out[i] = '\n';
      continue;
    }
    if (c == 'R' && i + 1 < s.size() && s[i + 1] == '"') { // raw string R"delim( ... )delim"
      const std::size_t open = s.find('(', i + 2);
      if (open != std::string::npos) {
        const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
        const std::size_t end = s.find(close, open);
        const std::size_t stop = end == std::string::npos ? s.size() : end + close.size();
        for (; i < stop; ++i)
          if (s[i] == '\n') out[i] = '\n';
        continue;
      }
    }
    if (c == '"' || c == '\'') {
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
      continue;
    }
    out[i] = c;
    ++i;
  }
  return out;
}

std::vector<std::string> tokenize(const std::string &code) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < code.size();) {
    const unsigned char c = static_cast<unsigned char>(code[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalnum(c) || c == '_') {
      std::size_t j = i;
      while (j < code.size() && (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) ++j;
      tokens.push_back(code.substr(i, j - i));
      i = j;
    } else if (c == ':' && i + 1 < code.size() && code[i + 1] == ':') {
      tokens.push_back("::");
      i += 2;
    } else if (c == '[' && i + 1 < code.size() && code[i + 1] == '[') { // an attribute: dropped
      std::size_t depth = 0, j = i;
      for (; j < code.size(); ++j) {
        if (code[j] == '[') ++depth;
        else if (code[j] == ']' && --depth == 0) break;
      }
      i = j + 1;
    } else {
      tokens.push_back(std::string(1, static_cast<char>(c)));
      ++i;
    }
  }
  return tokens;
}

bool isIdentifier(const std::string &t) {
  return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
}

std::string join(const std::vector<std::string> &tokens, std::size_t begin, std::size_t end) {
  std::string s;
  for (std::size_t i = begin; i < end; ++i) {
    if (!s.empty() && isIdentifier(tokens[i]) && isIdentifier(tokens[i - 1])) s += ' ';
    s += tokens[i];
  }
  return s;
}

struct ScannedClass {
  std::vector<std::string> namespaces;
  std::string name;
  bool isTemplate = false;
  std::vector<std::string> bases; // last name component of each base
  std::vector<std::string> fields;
};

struct Instantiation {
  std::vector<std::string> namespaces;
  std::string type; // "Foo<float>" or "ns::Foo<float>"
  std::string name; // "Foo"
};

class Scanner {
public:
  explicit Scanner(std::vector<std::string> tokens) : t_(std::move(tokens)) {}

  void run() { scope(0, t_.size()); }
  std::vector<ScannedClass> classes;
  std::vector<Instantiation> instantiations;

private:
  // The index of the token closing the bracket opened at `open`.
  std::size_t matching(std::size_t open) const {
    const std::string o = t_[open], c = o == "{" ? "}" : o == "(" ? ")" : o == "[" ? "]" : ">";
    std::size_t depth = 0, parens = 0; // template arguments may hold (a > b)
    for (std::size_t i = open; i < t_.size(); ++i) {
      if (o == "<" && t_[i] == "(") {
        ++parens;
        continue;
      }
      if (o == "<" && t_[i] == ")") {
        if (parens) --parens;
        continue;
      }
      if (parens) continue;
      if (t_[i] == o) ++depth;
      else if (t_[i] == c && --depth == 0) return i;
      else if (o == "<" && (t_[i] == ";" || t_[i] == "{")) return i; // a less-than, not a bracket
    }
    return t_.size();
  }

  // Namespace scope: tokens [begin, end).
  void scope(std::size_t begin, std::size_t end) {
    bool templated = false;
    for (std::size_t i = begin; i < end;) {
      const std::string &tok = t_[i];
      if (tok == "namespace") {
        std::size_t j = i + 1;
        std::vector<std::string> names;
        while (j < end && t_[j] != "{" && t_[j] != ";" && t_[j] != "=") {
          if (isIdentifier(t_[j])) names.push_back(t_[j]);
          ++j;
        }
        if (j < end && t_[j] == "{") {
          if (names.empty()) names.push_back("");
          const std::size_t close = matching(j);
          const std::size_t depth = namespaces_.size();
          namespaces_.insert(namespaces_.end(), names.begin(), names.end());
          scope(j + 1, close);
          namespaces_.resize(depth);
          i = close + 1;
        } else {
          i = j + 1;
        }
        templated = false;
        continue;
      }
      if (tok == "extern" && i + 1 < end && t_[i + 1] == "template") { // a declaration only
        while (i < end && t_[i] != ";") ++i;
        continue;
      }
      if (tok == "template") {
        if (i + 1 < end && t_[i + 1] == "<") {
          i = matching(i + 1) + 1;
          templated = true;
          continue;
        }
        if (i + 1 < end && (t_[i + 1] == "class" || t_[i + 1] == "struct")) { // explicit instantiation
          std::size_t j = i + 2;
          while (j < end && t_[j] != ";") ++j;
          Instantiation inst;
          inst.namespaces = namespaces_;
          inst.type = join(t_, i + 2, j);
          for (std::size_t k = i + 2; k < j && t_[k] != "<"; ++k)
            if (isIdentifier(t_[k])) inst.name = t_[k];
          instantiations.push_back(inst);
          i = j + 1;
          continue;
        }
      }
      if (tok == "class" || tok == "struct") {
        i = classDefinition(i, end, templated);
        templated = false;
        continue;
      }
      if (tok == "{") { // a function body or an initializer
        i = matching(i) + 1;
        templated = false;
        continue;
      }
      if (tok == ";") templated = false;
      ++i;
    }
  }

  // At `class`/`struct`; returns the index after the definition or declaration.
  std::size_t classDefinition(std::size_t i, std::size_t end, bool templated) {
    std::size_t j = i + 1;
    std::string name;
    while (j < end && isIdentifier(t_[j]) && t_[j] != "final") name = t_[j++];
    if (j < end && t_[j] == "final") ++j;
    if (name.empty() || j >= end || (t_[j] != ":" && t_[j] != "{")) return j; // not a definition here
    ScannedClass cls;
    cls.namespaces = namespaces_;
    cls.name = name;
    cls.isTemplate = templated;
    if (t_[j] == ":") {
      std::string last;
      for (++j; j < end && t_[j] != "{"; ++j) {
        if (t_[j] == "<") {
          j = matching(j);
          continue;
        }
        if (t_[j] == ",") cls.bases.push_back(last), last.clear();
        else if (isIdentifier(t_[j]) && t_[j] != "public" && t_[j] != "private" &&
                 t_[j] != "protected" && t_[j] != "virtual")
          last = t_[j];
      }
      if (!last.empty()) cls.bases.push_back(last);
    }
    if (j >= end) return j;
    const std::size_t close = matching(j);
    cls.fields = members(j + 1, close);
    classes.push_back(cls);
    return close + 1;
  }

  // The names of the non-static data members declared in a class body.
  std::vector<std::string> members(std::size_t begin, std::size_t end) const {
    static const std::set<std::string> notData = {
        "using", "typedef", "static", "friend", "template", "enum", "class", "struct", "union",
        "static_assert", "constexpr", "operator", "virtual", "explicit", "inline"};
    std::vector<std::string> names;
    std::vector<std::string> statement;
    bool function = false;
    auto finish = [&] {
      if (!statement.empty() && !function && !notData.count(statement.front())) {
        // Declarators: split at top-level commas, drop initializers; the name is
        // each declarator's last identifier (arrays and bit-fields are skipped).
        int angle = 0;
        std::vector<std::string> declarator;
        auto take = [&] {
          std::size_t stop = declarator.size();
          for (std::size_t k = 0; k < declarator.size(); ++k)
            if (declarator[k] == "=") { stop = k; break; }
          bool plain = true;
          for (std::size_t k = 0; k < stop; ++k) plain = plain && declarator[k] != "[" && declarator[k] != ":";
          if (plain && stop > 0 && isIdentifier(declarator[stop - 1]) && stop > 1) names.push_back(declarator[stop - 1]);
          declarator.clear();
        };
        for (const std::string &tok : statement) {
          if (tok == "<") ++angle;
          if (tok == ">") --angle;
          if (tok == "," && angle == 0) {
            take();
            declarator.push_back("type"); // later declarators share the first one's type
          } else {
            declarator.push_back(tok);
          }
        }
        take();
      }
      statement.clear();
      function = false;
    };
    for (std::size_t i = begin; i < end; ++i) {
      const std::string &tok = t_[i];
      if ((tok == "public" || tok == "private" || tok == "protected") && i + 1 < end && t_[i + 1] == ":") {
        ++i;
        continue;
      }
      if (tok == "(") {
        bool initializer = false; // `T x = f(...)`: a data member with an initializer
        for (const std::string &s : statement) initializer = initializer || s == "=";
        if (!initializer) function = true;
        i = matching(i);
        continue;
      }
      if (tok == "{") {
        const bool body = function;
        i = matching(i);
        if (body) finish(); // a member function definition ends without a ';'
        continue;
      }
      if (tok == ";") {
        finish();
        continue;
      }
      statement.push_back(tok);
    }
    return names;
  }

  std::vector<std::string> t_;
  std::vector<std::string> namespaces_;
};

} // namespace

std::vector<ScannedVertex> scanCodeletVertices(const std::string &source) {
  Scanner scanner(tokenize(stripNonCode(source)));
  scanner.run();
  // Vertex classes: derived from a vertex base, directly or through scanned classes.
  std::map<std::string, const ScannedClass *> vertexClasses;
  std::set<std::string> vertexNames = {"Vertex", "MultiVertex", "SupervisorVertex", "SupervisorVertexIf"};
  for (bool grew = true; grew;) {
    grew = false;
    for (const ScannedClass &c : scanner.classes) {
      if (vertexClasses.count(c.name)) continue;
      for (const std::string &b : c.bases)
        if (vertexNames.count(b)) {
          vertexClasses[c.name] = &c;
          vertexNames.insert(c.name);
          grew = true;
          break;
        }
    }
  }
  // A class's fields: those of its vertex bases first, then its own.
  std::map<std::string, std::vector<std::string>> fieldsOf;
  std::set<std::string> visiting;
  auto allFields = [&](auto &self, const ScannedClass &c) -> std::vector<std::string> {
    if (fieldsOf.count(c.name)) return fieldsOf[c.name];
    if (!visiting.insert(c.name).second) return {};
    std::vector<std::string> fields;
    for (const std::string &b : c.bases) {
      const auto it = vertexClasses.find(b);
      if (it != vertexClasses.end()) {
        const auto inherited = self(self, *it->second);
        fields.insert(fields.end(), inherited.begin(), inherited.end());
      }
    }
    fields.insert(fields.end(), c.fields.begin(), c.fields.end());
    return fieldsOf[c.name] = fields;
  };
  std::vector<ScannedVertex> out;
  for (const ScannedClass &c : scanner.classes)
    if (vertexClasses.count(c.name) && vertexClasses[c.name] == &c && !c.isTemplate)
      out.push_back({c.namespaces, c.name, allFields(allFields, c)});
  for (const Instantiation &inst : scanner.instantiations) {
    const auto it = vertexClasses.find(inst.name);
    if (it != vertexClasses.end() && it->second->isTemplate)
      out.push_back({inst.namespaces, inst.type, allFields(allFields, *it->second)});
  }
  return out;
}

std::string vertexRegistrationCode(const std::vector<ScannedVertex> &vertices) {
  std::string code = "\n#include <popdsl_codelet/VertexRegistration.hpp>\n";
  std::string table;
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    const ScannedVertex &vertex = vertices[v];
    const std::string id = std::to_string(v);
    for (const std::string &ns : vertex.namespaces) code += "namespace " + ns + " {\n";
    // Fields may be private (the SDK reads them from its own metadata): each field's member
    // pointer is taken in an explicit instantiation, where access is not checked, and read
    // back through a friend of a tag type.
    code += "template <class Tag, auto Member> struct popdsl_take_" + id +
            " { friend auto popdsl_member(Tag) { return Member; } };\n";
    for (std::size_t k = 0; k < vertex.fields.size(); ++k) {
      const std::string tag = "popdsl_field_" + id + "_" + std::to_string(k);
      code += "struct " + tag + " { friend auto popdsl_member(" + tag + "); };\n";
      code += "template struct popdsl_take_" + id + "<" + tag + ", &" + vertex.type + "::" + vertex.fields[k] + ">;\n";
    }
    code += "static popdsl_vertex_info popdsl_describe_vertex_" + id + "() {\n";
    code += "  typedef " + vertex.type + " V;\n";
    code += "  static const popdsl_field_info fields[] = {\n";
    for (std::size_t k = 0; k < vertex.fields.size(); ++k)
      code += "    ::popdsl_codelet::field<V>(\"" + vertex.fields[k] + "\", popdsl_member(popdsl_field_" + id + "_" +
              std::to_string(k) + "())),\n";
    code += "    popdsl_field_info()};\n";
    code += "  return ::popdsl_codelet::describe<V>(fields, " + std::to_string(vertex.fields.size()) + ");\n}\n";
    for (std::size_t k = 0; k < vertex.namespaces.size(); ++k) code += "}\n";
    std::string qualified = "::";
    for (const std::string &ns : vertex.namespaces) qualified += ns.empty() ? "" : ns + "::";
    table += "    " + qualified + "popdsl_describe_vertex_" + id + "(),\n";
  }
  // Where the vertices' printf goes (print.h), when the codelet includes it.
  code += "#ifdef printf\n"
          "extern \"C\" __attribute__((visibility(\"default\"))) void\n"
          "popdsl_codelet_set_printer(popdsl_codelet_print_function print) {\n"
          "  ::popdsl_codelet::printer() = print;\n}\n"
          "#endif\n";
  code += "extern \"C\" __attribute__((visibility(\"default\"))) const popdsl_vertex_info *\n"
          "popdsl_codelet_vertices(unsigned *count) {\n"
          "  static const popdsl_vertex_info vertices[] = {\n" +
          table + "    popdsl_vertex_info()};\n  *count = " + std::to_string(vertices.size()) +
          ";\n  return vertices;\n}\n";
  return code;
}

} // namespace poplar::detail
