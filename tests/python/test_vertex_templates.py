"""poputil::templateVertex: vertex type names as poplibs spells them."""
import pytest

from popdsl import poplar, popnn, popops, poputil
from popdsl.popops import expr


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
