"""
namespace popnn::bn
"""
from __future__ import annotations
import popdsl._core.poplar
import popdsl._core.program
import typing
__all__: list[str] = ['batchNormGradients', 'batchNormParamGradients', 'batchNormParamUpdate', 'batchNormStatistics', 'batchNormWhiten', 'batchNormalise', 'distributedBatchNormGradients', 'distributedBatchNormStatistics']
@typing.overload
def batchNormGradients(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def batchNormGradients(graph: popdsl._core.poplar.Graph, actsWhitened: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def batchNormParamGradients(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, iStdDev: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
@typing.overload
def batchNormParamGradients(graph: popdsl._core.poplar.Graph, actsWhitened: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
@typing.overload
def batchNormParamUpdate(graph: popdsl._core.poplar.Graph, gammaDelta: popdsl._core.poplar.Tensor, betaDelta: popdsl._core.poplar.Tensor, scale: typing.SupportsFloat | typing.SupportsIndex, gamma: popdsl._core.poplar.Tensor, beta: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> None:
    ...
@typing.overload
def batchNormParamUpdate(graph: popdsl._core.poplar.Graph, gammaDelta: popdsl._core.poplar.Tensor, betaDelta: popdsl._core.poplar.Tensor, scale: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, beta: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> None:
    ...
def batchNormStatistics(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, eps: typing.SupportsFloat | typing.SupportsIndex, prog: popdsl._core.program.Sequence, unbiasedVarEstimate: bool, stableAlgo: bool = False, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
def batchNormWhiten(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def batchNormalise(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, beta: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    ...
@typing.overload
def batchNormalise(graph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, combinedMultiplicand: popdsl._core.poplar.Tensor, addend: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    ...
@typing.overload
def distributedBatchNormGradients(replicatedGraph: popdsl._core.poplar.Graph, actsWhitened: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, reduceCallback: typing.Any, normBatchSize: typing.SupportsInt | typing.SupportsIndex, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    """
    reduceCallback(graph, inputs, prog, groupSize, debugContext, options) -> list of Tensors, or None
    """
@typing.overload
def distributedBatchNormGradients(replicatedGraph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, gradsIn: popdsl._core.poplar.Tensor, mean: popdsl._core.poplar.Tensor, invStdDev: popdsl._core.poplar.Tensor, gamma: popdsl._core.poplar.Tensor, prog: popdsl._core.program.Sequence, reduceCallback: typing.Any, normBatchSize: typing.SupportsInt | typing.SupportsIndex, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> popdsl._core.poplar.Tensor:
    """
    reduceCallback(graph, inputs, prog, groupSize, debugContext, options) -> list of Tensors, or None
    """
def distributedBatchNormStatistics(replicatedGraph: popdsl._core.poplar.Graph, acts: popdsl._core.poplar.Tensor, eps: typing.SupportsFloat | typing.SupportsIndex, prog: popdsl._core.program.Sequence, unbiasedVarEstimate: bool, reduceCallback: typing.Any, normBatchSize: typing.SupportsInt | typing.SupportsIndex, stableAlgo: bool = False, partialsType: popdsl._core.poplar.Type = ..., debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}) -> tuple[popdsl._core.poplar.Tensor, popdsl._core.poplar.Tensor]:
    """
    reduceCallback(graph, inputs, prog, groupSize, debugContext, options) -> list of Tensors, or None
    """
