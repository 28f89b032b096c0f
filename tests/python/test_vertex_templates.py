"""poputil::templateVertex: vertex type names as poplibs spells them."""
import subprocess

import pytest

from popdsl import poplar, popnn, popops, poputil
from popdsl.popops import expr
from cpp_build import build_program


def test_types_bools_integers_and_enums():
    name = poputil.templateVertex("popops::Vertex", poplar.FLOAT, poplar.HALF, poplar.INT, poplar.UNSIGNED_INT,
                                  True, False, 4, -2, "raw", popops.Operation.ADD, expr.BinaryOpType.MULTIPLY,
                                  popnn.NonLinearityType.RELU)
    assert name == ("popops::Vertex<float,half,int,unsigned int,true,false,4,-2,raw,popops::Operation::ADD,"
                    "popops::expr::BinaryOpType::MULTIPLY,popnn::NonLinearityType::RELU>")


def test_no_arguments_is_the_bare_name():
    assert poputil.templateVertex("poplin::Plain") == "poplin::Plain"


def test_unnameable_argument():
    with pytest.raises(TypeError, match="cannot name a template argument of type float"):
        poputil.templateVertex("X", 1.5)


def test_cpp_names_build_with_cpp11(tmp_path):
    exe = build_program(tmp_path, r'''
#include <popops/OperationDefUtil.hpp>
#include <iostream>
enum class Shape { SQUARE };
namespace poputil {
template <> struct VertexTemplateToString<Shape> {
  static std::string to_string(Shape) { return "Shape::SQUARE"; }
};
} // namespace poputil
int main() {
  const std::string suffix = "end";
  std::cout << poputil::templateVertex("popops::Reduce", popops::Operation::LOG_ADD, poplar::HALF, 8u, -2, false,
                                       suffix, "lit", Shape::SQUARE) << "\n"
            << poputil::templateVertex("Plain") << "\n" << poputil::asString(popops::Operation::LOGICAL_OR) << "\n";
}''', std="c++11", strict=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    assert out == ("popops::Reduce<popops::Operation::LOG_ADD,half,8,-2,false,end,lit,Shape::SQUARE>\n"
                   "Plain\nLogical Or\n")


def test_template_vertex_params_opens_continues_and_closes_the_list(tmp_path):
    # templateVertexParams(first, ...) is the list after a name: '<' when first, ',' after a
    # parameter, and '>' once the parameters run out (nothing at all for no parameters).
    exe = build_program(tmp_path, r'''
#include <poputil/VertexTemplates.hpp>
#include <iostream>
int main() {
  std::cout << poputil::templateVertexParams(true) << "|" << poputil::templateVertexParams(false) << "|"
            << poputil::templateVertexParams(true, std::string("s"), "lit", poplar::HALF, false, 7u) << "|"
            << poputil::templateVertexParams(false, poplar::FLOAT) << "\n";
}''', std="c++11", strict=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    assert out == "|>|<s,lit,half,false,7>|,float>\n"
