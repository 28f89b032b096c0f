"""
namespace popnn::ln
"""
from __future__ import annotations
import popdsl._core.poplar
import popdsl._core.program
import typing
__all__: list[str] = ['layerNormGradients', 'layerNormParamGradients', 'layerNormParamUpdate', 'layerNormStatistics', 'layerNormWhiten', 'layerNormalise']
@typing.overload
def layerNormGradients(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def layerNormGradients(graph: popdsl._core.poplar.Graph, actsWhitened: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def layerNormParamGradients(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, iStdDev: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
@typing.overload
def layerNormParamGradients(graph: popdsl._core.poplar.Graph, actsWhitened: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
@typing.overload
def layerNormParamUpdate(graph: popdsl._core.poplar.Graph, gammaDelta: popdsl._core.poplar.Tensor, betaDelta: popdsl._core.poplar.Tensor, scale: typing.SupportsFloat | typing.SupportsIndex, gamma: popdsl._core.poplar.Tensor, beta: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> None:
    ...
@typing.overload
def layerNormParamUpdate(graph: popdsl._core.poplar.Graph, gammaDelta: popdsl._core.poplar.Tensor, betaDelta: popdsl._core.poplar.Tensor, scale: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, beta: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> None:
    ...
def layerNormStatistics(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, eps: typing.SupportsFloat | typing.SupportsIndex, prog: popdsl._core.program.Sequence, unbiasedVarEstimate: bool, stableAlgo: bool = False, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
def layerNormWhiten(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
def layerNormalise(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, beta: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
