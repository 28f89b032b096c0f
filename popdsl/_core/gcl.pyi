"""
namespace gcl
"""
from __future__ import annotations
import collections.abc
import popdsl._core.poplar
import popdsl._core.program
import typing
__all__: list[str] = ['CollectiveOperator', 'CommGroup', 'CommGroupType', 'allGatherCrossReplica', 'allReduceCrossReplica', 'allReduceInPlaceCrossReplica', 'allReduceToDestinationCrossReplica', 'allToAllCrossReplica', 'broadcastCrossReplica', 'reduceScatterCrossReplica']
class CollectiveOperator:
    """
    Members:
    
      ADD
    
      MEAN
    
      MUL
    
      MIN
    
      MAX
    
      LOGICAL_AND
    
      LOGICAL_OR
    
      SQUARE_ADD
    
      LOCAL
    """
    ADD: typing.ClassVar[CollectiveOperator]
    LOCAL: typing.ClassVar[CollectiveOperator]
    LOGICAL_AND: typing.ClassVar[CollectiveOperator]
    LOGICAL_OR: typing.ClassVar[CollectiveOperator]
    MAX: typing.ClassVar[CollectiveOperator]
    MEAN: typing.ClassVar[CollectiveOperator]
    MIN: typing.ClassVar[CollectiveOperator]
    MUL: typing.ClassVar[CollectiveOperator]
    SQUARE_ADD: typing.ClassVar[CollectiveOperator]
    __members__: typing.ClassVar[dict[str, CollectiveOperator]]
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
class CommGroupType:
    """
    Members:
    
      ALL
    
      CONSECUTIVE
    
      ORTHOGONAL
    """
    ALL: typing.ClassVar[CommGroupType]
    CONSECUTIVE: typing.ClassVar[CommGroupType]
    ORTHOGONAL: typing.ClassVar[CommGroupType]
    __members__: typing.ClassVar[dict[str, CommGroupType]]
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
class CommGroup:
    type: CommGroupType
    @typing.overload
    def __init__(self) -> None:
        ...
    @typing.overload
    def __init__(self, groupType: CommGroupType, groupSize: typing.SupportsInt | typing.SupportsIndex, replicaStride: typing.SupportsInt | typing.SupportsIndex = 1) -> None:
        ...
    @property
    def replicaGroupSize(self) -> int:
        ...
    @replicaGroupSize.setter
    def replicaGroupSize(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def replicaStride(self) -> int:
        ...
    @replicaStride.setter
    def replicaStride(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
@typing.overload
def allGatherCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, group: CommGroup, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def allGatherCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def allReduceCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, op: CollectiveOperator, prog: popdsl._core.program.Sequence, group: CommGroup, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def allReduceCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, op: CollectiveOperator, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def allReduceCrossReplica(graph: popdsl._core.poplar.Graph, datas: collections.abc.Sequence[popdsl._core.poplar.Tensor], op: CollectiveOperator, prog: popdsl._core.program.Sequence, group: CommGroup, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> list[popdsl._core.poplar.Tensor]:
    ...
@typing.overload
def allReduceInPlaceCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, op: CollectiveOperator, prog: popdsl._core.program.Sequence, group: CommGroup, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> None:
    ...
@typing.overload
def allReduceInPlaceCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, op: CollectiveOperator, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> None:
    ...
def allReduceToDestinationCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, destination: popdsl._core.poplar.Tensor, op: CollectiveOperator, prog: popdsl._core.program.Sequence, group: CommGroup, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> None:
    ...
@typing.overload
def allToAllCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, group: CommGroup, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def allToAllCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
def broadcastCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, group: CommGroup = ..., rootReplica: typing.SupportsInt | typing.SupportsIndex = 0, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def reduceScatterCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, op: CollectiveOperator, prog: popdsl._core.program.Sequence, group: CommGroup, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def reduceScatterCrossReplica(graph: popdsl._core.poplar.Graph, data: popdsl._core.poplar.Tensor, op: CollectiveOperator, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
