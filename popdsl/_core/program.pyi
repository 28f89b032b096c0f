"""
namespace poplar::program
"""
from __future__ import annotations
import collections.abc
import popdsl._core.poplar
import typing
__all__: list[str] = ['Abort', 'AbortOnCondition', 'AssumeEqualAcrossReplicas', 'Block', 'Call', 'Copy', 'CrossReplicaCopy', 'ErrorProgram', 'Execute', 'If', 'Loop', 'PrintTensor', 'PrintTensorFmt', 'Program', 'Repeat', 'RepeatWhileFalse', 'RepeatWhileTrue', 'Sequence', 'Switch', 'Sync', 'WriteUndef', 'dumpProgram']
class PrintTensorFmt:
    class FloatFormat:
        """
        Members:
        
          Auto
        
          Fixed
        
          Scientific
        
          None_
        """
        Auto: typing.ClassVar[PrintTensorFmt.FloatFormat]
        Fixed: typing.ClassVar[PrintTensorFmt.FloatFormat]
        None_: typing.ClassVar[PrintTensorFmt.FloatFormat]
        Scientific: typing.ClassVar[PrintTensorFmt.FloatFormat]
        __members__: typing.ClassVar[dict[str, PrintTensorFmt.FloatFormat]]
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
    @staticmethod
    def disableFormatting() -> PrintTensorFmt:
        ...
    def __init__(self, summariseThreshold: typing.SupportsInt | typing.SupportsIndex = 1000, edgeItems: typing.SupportsInt | typing.SupportsIndex = 3, maxLineWidth: typing.SupportsInt | typing.SupportsIndex = 75, digits: typing.SupportsInt | typing.SupportsIndex = 8, floatFormat: PrintTensorFmt.FloatFormat = ..., separator: str = ' ', openBracket: str = '[', closeBracket: str = ']') -> None:
        ...
class Program:
    def __eq__(self, other: object) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self) -> None:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def isEmpty(self) -> bool:
        ...
class Sequence(Program):
    def __init__(self, programs: collections.abc.Sequence[Program] = [], debugContext: str | None = '') -> None:
        ...
    def add(self, program: Program) -> None:
        ...
class Execute(Program):
    def __init__(self, cs: popdsl._core.poplar.ComputeSet, debugContext: str | None = '') -> None:
        ...
class Loop(Program):
    def __init__(self, body: Program, debugContext: str | None = '') -> None:
        ...
class Block(Program):
    def __init__(self, program: Program, debugContext: str | None = '') -> None:
        ...
class CrossReplicaCopy(Program):
    """
    Replica k's src to dst of replica replicaMap[k]
    """
    def __init__(self, src: popdsl._core.poplar.Tensor, dst: popdsl._core.poplar.Tensor, replicaMap: collections.abc.Mapping[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex], debugContext: str | None = '') -> None:
        ...
class AssumeEqualAcrossReplicas(Program):
    def __init__(self, t: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
class ErrorProgram(Program):
    def __init__(self, message: str, debugTensor: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
class Repeat(Program):
    def __init__(self, count: typing.SupportsInt | typing.SupportsIndex, body: Program, debugContext: str | None = '') -> None:
        ...
class RepeatWhileTrue(Program):
    def __init__(self, cond: Program, predicate: popdsl._core.poplar.Tensor, body: Program, debugContext: str | None = '') -> None:
        ...
class RepeatWhileFalse(Program):
    def __init__(self, cond: Program, predicate: popdsl._core.poplar.Tensor, body: Program, debugContext: str | None = '') -> None:
        ...
class If(Program):
    def __init__(self, predicate: popdsl._core.poplar.Tensor, trueBody: Program, falseBody: Program = ..., debugContext: str | None = '') -> None:
        ...
class Switch(Program):
    @staticmethod
    def switchWithBoundsChecking(control: popdsl._core.poplar.Tensor, cases: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, Program]], debugContext: str | None = '') -> Switch:
        ...
    @staticmethod
    def switchWithUnreachableDefault(control: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> Switch:
        ...
    @typing.overload
    def __init__(self, control: popdsl._core.poplar.Tensor, cases: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, Program]], defaultCase: Program, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, control: popdsl._core.poplar.Tensor, cases: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, Program]], debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, control: popdsl._core.poplar.Tensor, defaultCase: Program, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, control: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
    def add(self, value: typing.SupportsInt | typing.SupportsIndex, body: Program) -> Switch:
        ...
class Copy(Program):
    @typing.overload
    def __init__(self, src: popdsl._core.poplar.Tensor, dst: popdsl._core.poplar.Tensor, dontOutline: bool = False, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, stream: popdsl._core.poplar.DataStream, dst: popdsl._core.poplar.Tensor, optimiseMemory: bool = False, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, src: popdsl._core.poplar.Tensor, stream: popdsl._core.poplar.DataStream, optimiseMemory: bool = False, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, buffer: popdsl._core.poplar.RemoteBuffer, dst: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, buffer: popdsl._core.poplar.RemoteBuffer, dst: popdsl._core.poplar.Tensor, offset: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, src: popdsl._core.poplar.Tensor, buffer: popdsl._core.poplar.RemoteBuffer, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, src: popdsl._core.poplar.Tensor, buffer: popdsl._core.poplar.RemoteBuffer, offset: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, buffer: popdsl._core.poplar.FunctionBuffer, function: popdsl._core.poplar.Function, debugContext: str | None = '') -> None:
        ...
class WriteUndef(Program):
    def __init__(self, t: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
class Call(Program):
    @typing.overload
    def __init__(self, f: popdsl._core.poplar.Function, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, f: popdsl._core.poplar.HostFunction, inputs: typing.Sequence[popdsl._core.poplar.Tensor], outputs: typing.Sequence[popdsl._core.poplar.Tensor], debugContext: str | None = '') -> None:
        ...
class PrintTensor(Program):
    @typing.overload
    def __init__(self, t: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, title: str, t: popdsl._core.poplar.Tensor, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, t: popdsl._core.poplar.Tensor, fmt: PrintTensorFmt, debugContext: str | None = '') -> None:
        ...
    @typing.overload
    def __init__(self, title: str, t: popdsl._core.poplar.Tensor, fmt: PrintTensorFmt, debugContext: str | None = '') -> None:
        ...
class Sync(Program):
    def __init__(self, type: popdsl._core.poplar.SyncType, debugContext: str | None = '') -> None:
        ...
class Abort(Program):
    def __init__(self, message: str = '', debugContext: str | None = '') -> None:
        ...
class AbortOnCondition(Program):
    def __init__(self, predicate: popdsl._core.poplar.Tensor, message: str = '', debugContext: str | None = '') -> None:
        ...
def dumpProgram(graph: popdsl._core.poplar.Graph, program: Program) -> str:
    """
    the dump as a string
    """
