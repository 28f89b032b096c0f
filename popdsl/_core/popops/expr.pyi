"""
namespace popops::expr
"""
from __future__ import annotations
import collections.abc
import popdsl._core.poplar
import typing
__all__: list[str] = ['Abs', 'Add', 'And', 'Asin', 'Atan2', 'BinaryOp', 'BinaryOpType', 'BitwiseAnd', 'BitwiseNot', 'BitwiseOr', 'BitwiseXnor', 'BitwiseXor', 'Cast', 'Cbrt', 'Ceil', 'Clamp', 'Const', 'ConstHalf', 'Cos', 'Divide', 'Equal', 'Erf', 'Exp', 'Exp2', 'Expm1', 'Expr', 'Floor', 'GeluErf', 'Gt', 'Gte', 'Inv', 'InvStdDevToVariance', 'IsFinite', 'IsInf', 'IsNaN', 'Log', 'Log1p', 'Lt', 'Lte', 'Max', 'Min', 'Mul', 'NearbyInt', 'Neg', 'Not', 'NotEqual', 'Or', 'PlaceHolder', 'Pow', 'Rem', 'Round', 'Rsqrt', 'Select', 'Shl', 'Shr', 'ShrSE', 'Sigmoid', 'Signum', 'Sin', 'Sqrt', 'Square', 'Sub', 'Tan', 'Tanh', 'TernaryOp', 'TernaryOpType', 'Trunc', 'UnaryOp', 'UnaryOpType', 'VarianceToInvStdDev']
class UnaryOpType:
    """
    Members:
    
      ABSOLUTE
    
      ASIN
    
      BITWISE_NOT
    
      CBRT
    
      CEIL
    
      COS
    
      COUNT_LEADING_ZEROS
    
      ERF
    
      EXPONENT
    
      EXPONENT_MINUS_ONE
    
      EXPONENT2
    
      FLOOR
    
      GELU_ERF
    
      INVERSE
    
      IS_FINITE
    
      IS_INF
    
      IS_NAN
    
      LOGARITHM
    
      LOGARITHM_ONE_PLUS
    
      LOGICAL_NOT
    
      NEGATE
    
      NEARBY_INT
    
      POPCOUNT
    
      RELU
    
      SIGNUM
    
      SIN
    
      TAN
    
      TANH
    
      ROUND
    
      SQRT
    
      SQUARE
    
      SIGMOID
    
      RSQRT
    
      TRUNC
    """
    ABSOLUTE: typing.ClassVar[UnaryOpType]
    ASIN: typing.ClassVar[UnaryOpType]
    BITWISE_NOT: typing.ClassVar[UnaryOpType]
    CBRT: typing.ClassVar[UnaryOpType]
    CEIL: typing.ClassVar[UnaryOpType]
    COS: typing.ClassVar[UnaryOpType]
    COUNT_LEADING_ZEROS: typing.ClassVar[UnaryOpType]
    ERF: typing.ClassVar[UnaryOpType]
    EXPONENT: typing.ClassVar[UnaryOpType]
    EXPONENT2: typing.ClassVar[UnaryOpType]
    EXPONENT_MINUS_ONE: typing.ClassVar[UnaryOpType]
    FLOOR: typing.ClassVar[UnaryOpType]
    GELU_ERF: typing.ClassVar[UnaryOpType]
    INVERSE: typing.ClassVar[UnaryOpType]
    IS_FINITE: typing.ClassVar[UnaryOpType]
    IS_INF: typing.ClassVar[UnaryOpType]
    IS_NAN: typing.ClassVar[UnaryOpType]
    LOGARITHM: typing.ClassVar[UnaryOpType]
    LOGARITHM_ONE_PLUS: typing.ClassVar[UnaryOpType]
    LOGICAL_NOT: typing.ClassVar[UnaryOpType]
    NEARBY_INT: typing.ClassVar[UnaryOpType]
    NEGATE: typing.ClassVar[UnaryOpType]
    POPCOUNT: typing.ClassVar[UnaryOpType]
    RELU: typing.ClassVar[UnaryOpType]
    ROUND: typing.ClassVar[UnaryOpType]
    RSQRT: typing.ClassVar[UnaryOpType]
    SIGMOID: typing.ClassVar[UnaryOpType]
    SIGNUM: typing.ClassVar[UnaryOpType]
    SIN: typing.ClassVar[UnaryOpType]
    SQRT: typing.ClassVar[UnaryOpType]
    SQUARE: typing.ClassVar[UnaryOpType]
    TAN: typing.ClassVar[UnaryOpType]
    TANH: typing.ClassVar[UnaryOpType]
    TRUNC: typing.ClassVar[UnaryOpType]
    __members__: typing.ClassVar[dict[str, UnaryOpType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class BinaryOpType:
    """
    Members:
    
      ADD
    
      ATAN2
    
      BITWISE_AND
    
      BITWISE_OR
    
      BITWISE_XOR
    
      BITWISE_XNOR
    
      DIVIDE
    
      EQUAL
    
      GREATER_THAN_EQUAL
    
      GREATER_THAN
    
      INV_STD_DEV_TO_VARIANCE
    
      LESS_THAN_EQUAL
    
      LOGICAL_AND
    
      LOGICAL_OR
    
      LESS_THAN
    
      MAXIMUM
    
      MINIMUM
    
      MULTIPLY
    
      NOT_EQUAL
    
      POWER
    
      REMAINDER
    
      SHIFT_LEFT
    
      SHIFT_RIGHT
    
      SHIFT_RIGHT_SIGN_EXTEND
    
      SUBTRACT
    
      VARIANCE_TO_INV_STD_DEV
    """
    ADD: typing.ClassVar[BinaryOpType]
    ATAN2: typing.ClassVar[BinaryOpType]
    BITWISE_AND: typing.ClassVar[BinaryOpType]
    BITWISE_OR: typing.ClassVar[BinaryOpType]
    BITWISE_XNOR: typing.ClassVar[BinaryOpType]
    BITWISE_XOR: typing.ClassVar[BinaryOpType]
    DIVIDE: typing.ClassVar[BinaryOpType]
    EQUAL: typing.ClassVar[BinaryOpType]
    GREATER_THAN: typing.ClassVar[BinaryOpType]
    GREATER_THAN_EQUAL: typing.ClassVar[BinaryOpType]
    INV_STD_DEV_TO_VARIANCE: typing.ClassVar[BinaryOpType]
    LESS_THAN: typing.ClassVar[BinaryOpType]
    LESS_THAN_EQUAL: typing.ClassVar[BinaryOpType]
    LOGICAL_AND: typing.ClassVar[BinaryOpType]
    LOGICAL_OR: typing.ClassVar[BinaryOpType]
    MAXIMUM: typing.ClassVar[BinaryOpType]
    MINIMUM: typing.ClassVar[BinaryOpType]
    MULTIPLY: typing.ClassVar[BinaryOpType]
    NOT_EQUAL: typing.ClassVar[BinaryOpType]
    POWER: typing.ClassVar[BinaryOpType]
    REMAINDER: typing.ClassVar[BinaryOpType]
    SHIFT_LEFT: typing.ClassVar[BinaryOpType]
    SHIFT_RIGHT: typing.ClassVar[BinaryOpType]
    SHIFT_RIGHT_SIGN_EXTEND: typing.ClassVar[BinaryOpType]
    SUBTRACT: typing.ClassVar[BinaryOpType]
    VARIANCE_TO_INV_STD_DEV: typing.ClassVar[BinaryOpType]
    __members__: typing.ClassVar[dict[str, BinaryOpType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TernaryOpType:
    """
    Members:
    
      CLAMP
    
      SELECT
    """
    CLAMP: typing.ClassVar[TernaryOpType]
    SELECT: typing.ClassVar[TernaryOpType]
    __members__: typing.ClassVar[dict[str, TernaryOpType]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Expr:
    """
    An element-wise expression; combine with Python operators
    """
    __hash__: typing.ClassVar[None] = None  # type: ignore[assignment]
    def __abs__(self) -> Expr:
        ...
    def __add__(self, arg0: typing.Any) -> Expr:
        ...
    def __and__(self, arg0: typing.Any) -> Expr:
        ...
    def __bool__(self) -> bool:
        ...
    def __eq__(self, arg0: typing.Any) -> Expr:  # type: ignore[override]
        ...
    def __ge__(self, arg0: typing.Any) -> Expr:
        ...
    def __gt__(self, arg0: typing.Any) -> Expr:
        ...
    def __invert__(self) -> Expr:
        ...
    def __le__(self, arg0: typing.Any) -> Expr:
        ...
    def __lshift__(self, arg0: typing.Any) -> Expr:
        ...
    def __lt__(self, arg0: typing.Any) -> Expr:
        ...
    def __mod__(self, arg0: typing.Any) -> Expr:
        ...
    def __mul__(self, arg0: typing.Any) -> Expr:
        ...
    def __ne__(self, arg0: typing.Any) -> Expr:  # type: ignore[override]
        ...
    def __neg__(self) -> Expr:
        ...
    def __or__(self, arg0: typing.Any) -> Expr:
        ...
    def __pow__(self, arg0: typing.Any) -> Expr:
        ...
    def __radd__(self, arg0: typing.Any) -> Expr:
        ...
    def __rand__(self, arg0: typing.Any) -> Expr:
        ...
    def __repr__(self) -> str:
        ...
    def __rlshift__(self, arg0: typing.Any) -> Expr:
        ...
    def __rmod__(self, arg0: typing.Any) -> Expr:
        ...
    def __rmul__(self, arg0: typing.Any) -> Expr:
        ...
    def __ror__(self, arg0: typing.Any) -> Expr:
        ...
    def __rpow__(self, arg0: typing.Any) -> Expr:
        ...
    def __rrshift__(self, arg0: typing.Any) -> Expr:
        ...
    def __rshift__(self, arg0: typing.Any) -> Expr:
        ...
    def __rsub__(self, arg0: typing.Any) -> Expr:
        ...
    def __rtruediv__(self, arg0: typing.Any) -> Expr:
        ...
    def __rxor__(self, arg0: typing.Any) -> Expr:
        ...
    def __sub__(self, arg0: typing.Any) -> Expr:
        ...
    def __truediv__(self, arg0: typing.Any) -> Expr:
        ...
    def __xor__(self, arg0: typing.Any) -> Expr:
        ...
    def deepEquals(self, arg0: Expr) -> bool:
        ...
    def name(self, inputs: collections.abc.Sequence[popdsl._core.poplar.Tensor]) -> str:
        ...
class Const(Expr):
    def __init__(self, value: typing.Any, type: typing.Any | None = None) -> None:
        """
        A constant; without a type it takes the type of the operand it meets
        """
    def getDataAsDouble(self) -> float:
        ...
    def getType(self) -> popdsl._core.poplar.Type:
        ...
    def printValue(self) -> str:
        ...
class PlaceHolder(Expr):
    def __init__(self, index: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def getIndex(self) -> int:
        ...
class Cast(Expr):
    def __init__(self, a: typing.Any, type: popdsl._core.poplar.Type) -> None:
        ...
    def getLHS(self) -> Expr:
        ...
    def getRHSType(self) -> popdsl._core.poplar.Type:
        ...
class UnaryOp(Expr):
    def __init__(self, type: UnaryOpType, a: typing.Any) -> None:
        ...
    def getArg(self) -> Expr:
        ...
    def getOpType(self) -> UnaryOpType:
        ...
class BinaryOp(Expr):
    def __init__(self, type: BinaryOpType, a: typing.Any, b: typing.Any) -> None:
        ...
    def getLHS(self) -> Expr:
        ...
    def getOpType(self) -> BinaryOpType:
        ...
    def getRHS(self) -> Expr:
        ...
class TernaryOp(Expr):
    def __init__(self, type: TernaryOpType, a: typing.Any, b: typing.Any, c: typing.Any) -> None:
        ...
    def getArg0(self) -> Expr:
        ...
    def getArg1(self) -> Expr:
        ...
    def getArg2(self) -> Expr:
        ...
    def getOpType(self) -> TernaryOpType:
        ...
def Abs(a: typing.Any) -> Expr:
    ...
def Add(a: typing.Any, b: typing.Any) -> Expr:
    ...
def And(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Asin(a: typing.Any) -> Expr:
    ...
def Atan2(a: typing.Any, b: typing.Any) -> Expr:
    ...
def BitwiseAnd(a: typing.Any, b: typing.Any) -> Expr:
    ...
def BitwiseNot(a: typing.Any) -> Expr:
    ...
def BitwiseOr(a: typing.Any, b: typing.Any) -> Expr:
    ...
def BitwiseXnor(a: typing.Any, b: typing.Any) -> Expr:
    ...
def BitwiseXor(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Cbrt(a: typing.Any) -> Expr:
    ...
def Ceil(a: typing.Any) -> Expr:
    ...
def Clamp(a: typing.Any, lower: typing.Any, upper: typing.Any) -> Expr:
    ...
def ConstHalf(value: typing.SupportsFloat | typing.SupportsIndex) -> Expr:
    ...
def Cos(a: typing.Any) -> Expr:
    ...
def Divide(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Equal(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Erf(a: typing.Any) -> Expr:
    ...
def Exp(a: typing.Any) -> Expr:
    ...
def Exp2(a: typing.Any) -> Expr:
    ...
def Expm1(a: typing.Any) -> Expr:
    ...
def Floor(a: typing.Any) -> Expr:
    ...
def GeluErf(a: typing.Any) -> Expr:
    ...
def Gt(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Gte(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Inv(a: typing.Any) -> Expr:
    ...
def InvStdDevToVariance(a: typing.Any, b: typing.Any) -> Expr:
    ...
def IsFinite(a: typing.Any) -> Expr:
    ...
def IsInf(a: typing.Any) -> Expr:
    ...
def IsNaN(a: typing.Any) -> Expr:
    ...
def Log(a: typing.Any) -> Expr:
    ...
def Log1p(a: typing.Any) -> Expr:
    ...
def Lt(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Lte(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Max(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Min(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Mul(a: typing.Any, b: typing.Any) -> Expr:
    ...
def NearbyInt(a: typing.Any) -> Expr:
    ...
def Neg(a: typing.Any) -> Expr:
    ...
def Not(a: typing.Any) -> Expr:
    ...
def NotEqual(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Or(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Pow(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Rem(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Round(a: typing.Any) -> Expr:
    ...
def Rsqrt(a: typing.Any) -> Expr:
    ...
def Select(a: typing.Any, b: typing.Any, condition: typing.Any) -> Expr:
    """
    condition ? a : b
    """
def Shl(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Shr(a: typing.Any, b: typing.Any) -> Expr:
    ...
def ShrSE(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Sigmoid(a: typing.Any) -> Expr:
    ...
def Signum(a: typing.Any) -> Expr:
    ...
def Sin(a: typing.Any) -> Expr:
    ...
def Sqrt(a: typing.Any) -> Expr:
    ...
def Square(a: typing.Any) -> Expr:
    ...
def Sub(a: typing.Any, b: typing.Any) -> Expr:
    ...
def Tan(a: typing.Any) -> Expr:
    ...
def Tanh(a: typing.Any) -> Expr:
    ...
def Trunc(a: typing.Any) -> Expr:
    ...
def VarianceToInvStdDev(a: typing.Any, b: typing.Any) -> Expr:
    ...
_1: PlaceHolder
_10: PlaceHolder
_11: PlaceHolder
_12: PlaceHolder
_13: PlaceHolder
_14: PlaceHolder
_15: PlaceHolder
_16: PlaceHolder
_17: PlaceHolder
_18: PlaceHolder
_19: PlaceHolder
_2: PlaceHolder
_20: PlaceHolder
_3: PlaceHolder
_4: PlaceHolder
_5: PlaceHolder
_6: PlaceHolder
_7: PlaceHolder
_8: PlaceHolder
_9: PlaceHolder
