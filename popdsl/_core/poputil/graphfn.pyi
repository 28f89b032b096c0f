"""
namespace poputil::graphfn
"""
from __future__ import annotations
import collections.abc
import popdsl._core.poplar
import popdsl._core.program
import typing
__all__: list[str] = ['ArgSig', 'ArgType', 'CreatedArg', 'InOutArg', 'InputArg', 'OutputArg', 'ProgramFunction', 'TensorFunction', 'VoidFunction', 'created', 'inout', 'input', 'output']
class ArgType:
    """
    Members:
    
      InputArg
    
      OutputArg
    
      InOutArg
    
      CreatedArg
    """
    CreatedArg: typing.ClassVar[ArgType]
    InOutArg: typing.ClassVar[ArgType]
    InputArg: typing.ClassVar[ArgType]
    OutputArg: typing.ClassVar[ArgType]
    __members__: typing.ClassVar[dict[str, ArgType]]
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
class ArgSig:
    debugName: str
    similarTensor: popdsl._core.poplar.Tensor
    type: ArgType
    def __init__(self, type: ArgType, tensor: popdsl._core.poplar.Tensor, debugName: str) -> None:
        ...
class VoidFunction:
    """
    f(args, seq) builds the body once; calls copy in and out
    """
    def __call__(self, args: list, seq: popdsl._core.program.Sequence, dc: str | None = '') -> list:
        """
        Adds the call to seq; returns the arguments with the created ones set
        """
    def __init__(self, graph: popdsl._core.poplar.Graph, sig: collections.abc.Sequence[ArgSig], f: collections.abc.Callable, inlined: bool = False, debugContext: str | None = '') -> None:
        ...
class ProgramFunction:
    """
    f(args) -> Program builds the body once
    """
    def __call__(self, args: list, debugContext: str | None = '') -> popdsl._core.program.Program:
        ...
    def __init__(self, graph: popdsl._core.poplar.Graph, sig: collections.abc.Sequence[ArgSig], f: collections.abc.Callable, inlined: bool = False, debugContext: str | None = '') -> None:
        ...
class TensorFunction:
    """
    f(args, seq) -> Tensor builds the body once
    """
    def __call__(self, args: list, prog: popdsl._core.program.Sequence, debugContext: str | None = '') -> popdsl._core.poplar.Tensor:
        ...
    def __init__(self, graph: popdsl._core.poplar.Graph, sig: collections.abc.Sequence[ArgSig], f: collections.abc.Callable, inlined: bool = False, debugContext: str | None = '') -> None:
        ...
def created(debugName: str = '') -> ArgSig:
    ...
def inout(similar: popdsl._core.poplar.Tensor, debugName: str = '') -> ArgSig:
    ...
def input(similar: popdsl._core.poplar.Tensor, debugName: str = '') -> ArgSig:
    ...
def output(similar: popdsl._core.poplar.Tensor, debugName: str = '') -> ArgSig:
    ...
CreatedArg: ArgType
InOutArg: ArgType
InputArg: ArgType
OutputArg: ArgType
