"""
namespace poplin::multiconv
"""
from __future__ import annotations
import collections.abc
import popdsl._core.poplar
import popdsl._core.poplin
import popdsl._core.program
import typing
__all__: list[str] = ['CalculateWeightDeltasArgs', 'ConvWeightUpdateArgs', 'ConvWeightUpdateArgsScalar', 'ConvolutionArgs', 'CreateTensorArgs', 'calculateWeightDeltas', 'convolution', 'convolutionWeightUpdate', 'createInput', 'createWeights', 'weightsTransposeChansFlipXY']
class CreateTensorArgs:
    name: str
    options: dict[str, str | int | float | bool] | None
    params: popdsl._core.poplin.ConvParams
    def __init__(self, params: popdsl._core.poplin.ConvParams, options: dict[str, str | int | float | bool] | None = {}, name: str = '') -> None:
        ...
class ConvolutionArgs:
    inputs: popdsl._core.poplar.Tensor
    options: dict[str, str | int | float | bool] | None
    params: popdsl._core.poplin.ConvParams
    weights: popdsl._core.poplar.Tensor
    def __init__(self, inputs: popdsl._core.poplar.Tensor, weights: popdsl._core.poplar.Tensor, params: popdsl._core.poplin.ConvParams, options: dict[str, str | int | float | bool] | None = {}) -> None:
        ...
class CalculateWeightDeltasArgs:
    activations: popdsl._core.poplar.Tensor
    options: dict[str, str | int | float | bool] | None
    params: popdsl._core.poplin.ConvParams
    zDeltas: popdsl._core.poplar.Tensor
    def __init__(self, zDeltas: popdsl._core.poplar.Tensor, activations: popdsl._core.poplar.Tensor, params: popdsl._core.poplin.ConvParams, options: dict[str, str | int | float | bool] | None = {}) -> None:
        ...
class ConvWeightUpdateArgs:
    activations: popdsl._core.poplar.Tensor
    options: dict[str, str | int | float | bool] | None
    params: popdsl._core.poplin.ConvParams
    scale: popdsl._core.poplar.Tensor
    weights: popdsl._core.poplar.Tensor
    zDeltas: popdsl._core.poplar.Tensor
    def __init__(self, zDeltas: popdsl._core.poplar.Tensor, weights: popdsl._core.poplar.Tensor, activations: popdsl._core.poplar.Tensor, scale: popdsl._core.poplar.Tensor, params: popdsl._core.poplin.ConvParams, options: dict[str, str | int | float | bool] | None = {}) -> None:
        ...
class ConvWeightUpdateArgsScalar:
    activations: popdsl._core.poplar.Tensor
    options: dict[str, str | int | float | bool] | None
    params: popdsl._core.poplin.ConvParams
    weights: popdsl._core.poplar.Tensor
    zDeltas: popdsl._core.poplar.Tensor
    def __init__(self, zDeltas: popdsl._core.poplar.Tensor, weights: popdsl._core.poplar.Tensor, activations: popdsl._core.poplar.Tensor, scale: typing.SupportsFloat | typing.SupportsIndex, params: popdsl._core.poplin.ConvParams, options: dict[str, str | int | float | bool] | None = {}) -> None:
        ...
    @property
    def scale(self) -> float:
        ...
    @scale.setter
    def scale(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
def calculateWeightDeltas(graph: popdsl._core.poplar.Graph, args: collections.abc.Sequence[CalculateWeightDeltasArgs], prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}, cache: popdsl._core.poplin.PlanningCache | None = None) -> list[popdsl._core.poplar.Tensor]:
    ...
def convolution(graph: popdsl._core.poplar.Graph, args: collections.abc.Sequence[ConvolutionArgs], transposeAndFlipWeights: bool, prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}, cache: popdsl._core.poplin.PlanningCache | None = None) -> list[popdsl._core.poplar.Tensor]:
    ...
@typing.overload
def convolutionWeightUpdate(graph: popdsl._core.poplar.Graph, args: collections.abc.Sequence[ConvWeightUpdateArgs], prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}, cache: popdsl._core.poplin.PlanningCache | None = None) -> None:
    ...
@typing.overload
def convolutionWeightUpdate(graph: popdsl._core.poplar.Graph, args: collections.abc.Sequence[ConvWeightUpdateArgsScalar], prog: popdsl._core.program.Sequence, debugContext: str | None = '', options: dict[str, str | int | float | bool] | None = {}, cache: popdsl._core.poplin.PlanningCache | None = None) -> None:
    ...
def createInput(graph: popdsl._core.poplar.Graph, args: collections.abc.Sequence[CreateTensorArgs], inputIndex: typing.SupportsInt | typing.SupportsIndex, options: dict[str, str | int | float | bool] | None = {}, cache: popdsl._core.poplin.PlanningCache | None = None) -> popdsl._core.poplar.Tensor:
    ...
def createWeights(graph: popdsl._core.poplar.Graph, args: collections.abc.Sequence[CreateTensorArgs], weightsIndex: typing.SupportsInt | typing.SupportsIndex, options: dict[str, str | int | float | bool] | None = {}, cache: popdsl._core.poplin.PlanningCache | None = None) -> popdsl._core.poplar.Tensor:
    ...
def weightsTransposeChansFlipXY(graph: popdsl._core.poplar.Graph, args: collections.abc.Sequence[ConvolutionArgs], weightsIn: collections.abc.Sequence[popdsl._core.poplar.Tensor], prog: popdsl._core.program.Sequence, options: dict[str, str | int | float | bool] | None, debugContext: str | None, cache: popdsl._core.poplin.PlanningCache | None = None) -> None:
    ...
