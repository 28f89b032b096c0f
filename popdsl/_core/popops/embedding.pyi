"""
namespace popops::embedding
"""
from __future__ import annotations
import collections.abc
import popdsl._core.poplar
import popdsl._core.popops
import typing
__all__: list[str] = ['plan']
@typing.overload
def plan(graph: popdsl._core.poplar.Graph, dataType: popdsl._core.poplar.Type, numEntries: typing.SupportsInt | typing.SupportsIndex, outputSize: typing.SupportsInt | typing.SupportsIndex, numLookups: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.popops.SlicePlan:
    ...
@typing.overload
def plan(graph: popdsl._core.poplar.Graph, dataType: popdsl._core.poplar.Type, groupSize: typing.SupportsInt | typing.SupportsIndex, numEntries: typing.SupportsInt | typing.SupportsIndex, outputSize: typing.SupportsInt | typing.SupportsIndex, numLookups: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.popops.SlicePlan:
    ...
