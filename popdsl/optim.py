"""Optimisers as graph builders: `opt.step(weights, grads)` updates the weights in place.

They follow PyTorch's formulas and defaults (torch.optim.SGD, Adam, AdamW). Their state
(momentum buffers, moments, the step count) are variables made with init=, so a session
keeps them as weights: saved, read and written like the model's. The learning rate is a
one-element float32 tensor (`opt.lr`, made by the first step unless one is given), so
`session.write(opt.lr, ...)` changes it between runs without recompiling; with a schedule
(pd.optim.WarmupCosine, ...) as `lr`, each step sets it from the step count. The other
hyper-parameters are compiled in.

Mixed precision: the update and the state are float32 whatever the weights' dtype. A
float16 weight gets a float32 master copy (`opt.master(w)`, taken from the weight at the
first step), updated in float32 and cast back into the weight after each step (float16's
epsilon and squared gradients would round to zero). With `loss_scale=` (a
pd.optim.LossScale) the gradients are unscaled in float32 first and, with a dynamic scale,
a step whose gradients hold an inf or NaN is skipped.

Sharded over the replicas (`shard_over_replicas=True`, PopTorch's replicated tensor sharding):
each replica gives `step` its own gradients, which are reduce-scattered (averaged) instead of
all-reduced; each replica keeps and updates only its chunk of every weight's state and master
copy (popdsl.replica_sharding), and the updated chunks are all-gathered into the weights. The
results are those of all-reducing with op="mean" and stepping unsharded; the state takes
about 1/replicas of the memory.
"""

from __future__ import annotations

import contextlib
from typing import Optional, Sequence, Union

import numpy as np

from popdsl._core.popops import expr as pe
from popdsl.accumulation import GradientAccumulator
from popdsl.clipping import clip_grad_norm
from popdsl.debug import BuildError, describe
from popdsl.dtypes import float32, is_floating
from popdsl.loss_scaling import LossScale
from popdsl.ops import cast, copy, map as _map, map_, where
from popdsl.placement import home_ipu, on_ipu
from popdsl.replica_sharding import (ShardedVariable, from_shards, gather_into, local_shard, require_every_replica,
                                     shard_size, to_shards)
from popdsl.replication import reduce_scatter
from popdsl.schedules import Schedule, StepDecay, WarmupCosine, WarmupLinear
from popdsl.session import Session
from popdsl.tensor import Tensor

Weight = Union[Tensor, ShardedVariable]  # what an optimizer steps

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "LossScale", "clip_grad_norm", "GradientAccumulator", "Schedule",
           "StepDecay", "WarmupCosine", "WarmupLinear"]


class Optimizer:
    """The state and checks every optimiser shares; subclasses define _update."""

    name = "optimizer"

    def __init__(self, lr, shard_over_replicas=False):
        self.schedule = lr if isinstance(lr, Schedule) else None
        if self.schedule is not None:
            self._lr_value, self.lr = self.schedule(1), None
        elif isinstance(lr, Tensor):
            if lr.size != 1 or lr.dtype != float32:
                raise BuildError(f"pd.optim.{type(self).__name__}: lr must be a number or a one-element float32 "
                                 f"tensor, got {lr!r}")
            self.lr = lr
        else:
            self._lr_value = _number(lr, "lr", 0.0)
            self.lr = None
        if not isinstance(shard_over_replicas, bool):
            raise BuildError(f"pd.optim.{type(self).__name__}: shard_over_replicas must be True or False, got "
                             f"{describe(shard_over_replicas)}")
        self.shard_over_replicas = shard_over_replicas
        self.state = {}  # id(weight) -> its state tensors, by name
        self._weights = {}  # id(weight) -> the weight, for each weight with state
        self._step_count = None

    def step(self, weights: Union[Weight, Sequence[Weight]], grads: Union[Tensor, Sequence[Tensor]],
             loss_scale: Optional[LossScale] = None, max_grad_norm: Optional[float] = None) -> Optional[Tensor]:
        """Appends the update of each weight by its gradient to the open block; with
        loss_scale, the gradients are those of loss_scale.scale(loss). With max_grad_norm the
        gradients are first clipped as pd.optim.clip_grad_norm does, and their norm (before
        clipping) is returned. Sharded over the replicas, each replica gives its own gradients:
        the step averages them over the replicas (a reduce-scatter) itself."""
        what = f"pd.optim.{type(self).__name__}.step"
        weights, grads = _pairs(weights, grads, what, self.shard_over_replicas)
        if loss_scale is not None and not isinstance(loss_scale, LossScale):
            raise BuildError(f"{what}: loss_scale must be a pd.optim.LossScale, got {describe(loss_scale)}")
        graph = weights[0].graph
        sharded = self.shard_over_replicas
        if sharded and graph.replicas < 2:
            raise BuildError(f"{what}: shard_over_replicas needs a replicated graph (pd.Graph(device, replicas=n), "
                             f"n >= 2); {weights[0]!r} is in a graph of one replica")
        if self.lr is None:
            self.lr = graph.variable(float32, (1,), name=f"optim/{self.name}/lr", init=self._lr_value)
        if self._step_count is None:
            self._step_count = graph.variable(float32, (1,), name=f"optim/{self.name}/step", init=0.0)
        if sharded:  # each replica keeps the mean of its chunk of every gradient
            grads = [reduce_scatter(g, op="mean") for g in grads]
        norm = None
        if max_grad_norm is not None:
            norm = clip_grad_norm(grads, max_grad_norm, across_replicas=sharded, loss_scale=loss_scale)
        masters = [self.master(w) for w in weights]
        with (loss_scale.guard(grads, across_replicas=sharded) if loss_scale is not None
              else contextlib.nullcontext()):
            self._step_count += 1.0
            if self.schedule is not None:  # the rate of this step, from its number
                map_(lambda lr, t: self.schedule.expression(t), self.lr, self._step_count)
            self._before_updates()
            for w, master, g in zip(weights, masters, grads):
                with on_ipu(_home_ipu(w)):  # a pipeline stage's weights update on its IPU
                    own = _own_elements(w, sharded)
                    if master is not w:  # the first step takes the master copy from the weight
                        map_(lambda m, w_, t: where(t == 1.0, pe.Cast(w_, float32), m), master, own,
                             self._step_count)
                    if loss_scale is not None:
                        g = loss_scale.unscaled(g)
                    updated = own if master is w else master
                    self._update(w, updated, g if g.dtype == float32 else cast(g, float32))
                    _write_back(updated, w, sharded)
        return norm

    def state_tensors(self) -> dict:
        """Every tensor of the optimiser's state by its name: the step count, the learning
        rate, and each weight's moments, buffers and master copy (all made by `step`).
        Sharded over the replicas, a weight's state tensors are 1-D chunks (replica_sharding)."""
        return {name: t for name, (t, _) in self._named_state().items()}

    def state_dict(self, session: Session, weights: bool = False) -> dict:
        """The state's values in `session` as numpy arrays by tensor name (np.savez stores
        them), for load_state_dict in a later session of the same model, sharded or not: a
        weight's state has the weight's shape (sharded state is gathered) and a replicated
        graph gives one copy (its replicas must hold the same state). weights=True adds
        the weights the optimiser updates, by their names, in the same form."""
        values = {}
        for name, (t, weight) in self._named_state().items():
            values[name] = self._host_form(session, t, weight)
        if weights:
            values.update({w.name: self._host_form(session, w, None) for w in self._weights.values()})
        return values

    def load_state_dict(self, session: Session, values: dict) -> None:
        """Writes a state_dict's arrays into `session`; every state tensor must be given, and
        the weights the optimiser updates may be (each one given is written)."""
        what = f"pd.optim.{type(self).__name__}.load_state_dict"
        state, weights = self._named_state(), {w.name: w for w in self._weights.values()}
        if not isinstance(values, dict) or not set(state) <= set(values) <= set(state) | set(weights):
            given = sorted(values) if isinstance(values, dict) else describe(values)
            raise BuildError(f"{what}: needs the state {sorted(state)} and may have the weights {sorted(weights)}, "
                             f"got {given}")
        for name, (t, weight) in state.items():
            array = values[name]
            if weight is not None and self.shard_over_replicas:
                require_every_replica(session, what)
                array = np.asarray(array)
                if array.size != weight.size:
                    raise BuildError(f"{what}: {name!r} must have the {weight.shape} elements of its weight "
                                     f"{weight!r}, got an array of shape {array.shape}")
                array = to_shards(array, weight.graph.replicas)
            session.write(t, array)
        for name in sorted(set(values) & set(weights)):
            if isinstance(weights[name], ShardedVariable):
                weights[name].write(session, values[name])
            else:
                session.write(weights[name], values[name])

    def master(self, w: Weight) -> Union[Tensor, ShardedVariable]:
        """The float32 tensor the update works on: w itself when float32, else its float32
        master copy (a session weight named `<w>/<optimizer>/master`; sharded over the
        replicas, each replica's chunk of it). w may be a ShardedVariable."""
        return w if w.dtype == float32 else self._state(w, "master")

    def _before_updates(self):
        """Per-step work shared by all weights (after the step count is incremented)."""

    def _state(self, w: Tensor, name: str) -> Tensor:
        """The float32 state tensor `name` of weight w, zero before the first step: w's
        shape, or sharded over the replicas each replica's chunk."""
        tensors = self.state.setdefault(id(w), {})
        self._weights[id(w)] = w
        if name not in tensors:
            shape = (shard_size(w.size, w.graph.replicas),) if self.shard_over_replicas else w.shape
            with on_ipu(_home_ipu(w)):
                tensors[name] = w.graph.variable(float32, shape, name=f"{w.name}/{self.name}/{name}",
                                                 init=np.zeros(shape))
        return tensors[name]

    def _named_state(self) -> dict:
        """name -> (state tensor, its weight or None for the step count and learning rate)."""
        entries = [(t, None) for t in (self._step_count, self.lr) if t is not None]
        entries += [(t, self._weights[key]) for key, by_name in self.state.items() for t in by_name.values()]
        named = {t.name: (t, weight) for t, weight in entries}
        if len(named) != len(entries):
            raise BuildError(f"pd.optim.{type(self).__name__}: two state tensors share a name (two weights with "
                             "one name?); give the weights distinct names")
        return named

    def _host_form(self, session: Session, t: Tensor, weight: Optional[Tensor]) -> np.ndarray:
        """t's values as state_dict gives them: one copy, in the weight's shape if sharded."""
        if isinstance(t, ShardedVariable):
            return t.read(session)
        array = session.read(t)
        if weight is not None and self.shard_over_replicas:
            require_every_replica(session, f"pd.optim.{type(self).__name__}.state_dict")
            return from_shards(array, weight.shape)
        if t.graph.replicas == 1:
            return array
        if not all(np.array_equal(array[0], other, equal_nan=True) for other in array[1:]):
            raise BuildError(f"pd.optim.{type(self).__name__}.state_dict: the replicas hold different values of "
                             f"{t!r}; state_dict gives one copy of replicated state")
        return array[0]


class SGD(Optimizer):
    """torch.optim.SGD: g += weight_decay * w; with momentum mu the buffer is b = g on the
    first step and b = mu * b + (1 - dampening) * g later; the step is g + mu * b with
    nesterov, else b; w -= lr * step."""

    name = "sgd"

    def __init__(self, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 shard_over_replicas=False):
        super().__init__(lr, shard_over_replicas)
        self.momentum = _number(momentum, "momentum", 0.0)
        self.dampening = _number(dampening, "dampening", 0.0, 1.0)
        self.weight_decay = _number(weight_decay, "weight_decay", 0.0)
        if nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise BuildError("pd.optim.SGD: Nesterov momentum needs momentum > 0 and dampening = 0")
        self.nesterov = bool(nesterov)

    def _update(self, weight, w, g):
        wd, mu, damp, lr = self.weight_decay, self.momentum, self.dampening, _as(self.lr, w)
        if mu == 0:
            map_(lambda w_, g_, lr_: w_ - lr_ * (g_ + wd * w_), w, g, lr)
            return
        buffer, first = self._state(weight, "momentum"), _as(self._step_count, w)
        map_(lambda b, g_, w_, t: where(t == 1.0, g_ + wd * w_, mu * b + (1.0 - damp) * (g_ + wd * w_)),
             buffer, g, w, first)
        if self.nesterov:
            map_(lambda w_, g_, b, lr_: w_ - lr_ * (g_ + wd * w_ + mu * b), w, g, buffer, lr)
        else:
            map_(lambda w_, b, lr_: w_ - lr_ * b, w, buffer, lr)


class Adam(Optimizer):
    """torch.optim.Adam: g += weight_decay * w (L2); m = b1 * m + (1 - b1) * g,
    v = b2 * v + (1 - b2) * g**2; w -= lr * m_hat / (sqrt(v_hat) + eps) with the moments
    bias-corrected by 1 - b**t for step t (eps outside the square root)."""

    name = "adam"
    decoupled = False  # AdamW decays the weight itself instead

    def __init__(self, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, shard_over_replicas=False):
        super().__init__(lr, shard_over_replicas)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise BuildError(f"pd.optim.{type(self).__name__}: betas must be a pair of numbers, got {describe(betas)}")
        self.betas = tuple(_number(b, "betas", 0.0, 1.0, open_top=True) for b in betas)
        self.eps = _number(eps, "eps", 0.0)
        self.weight_decay = _number(weight_decay, "weight_decay", 0.0)

    def _before_updates(self):
        b1, b2 = self.betas
        self._corrections = (_map(lambda t: 1.0 - pe.Pow(b1, t), self._step_count),
                             _map(lambda t: 1.0 - pe.Pow(b2, t), self._step_count))

    def _update(self, weight, w, g):
        (b1, b2), eps, wd = self.betas, self.eps, self.weight_decay
        lr, (c1, c2) = _as(self.lr, w), (_as(c, w) for c in self._corrections)
        m, v = self._state(weight, "m"), self._state(weight, "v")
        decay = 0.0 if self.decoupled else wd
        if self.decoupled and wd:
            map_(lambda w_, lr_: w_ * (1.0 - lr_ * wd), w, lr)
        map_(lambda m_, g_, w_: b1 * m_ + (1.0 - b1) * (g_ + decay * w_), m, g, w)
        map_(lambda v_, g_, w_: b2 * v_ + (1.0 - b2) * pe.Square(g_ + decay * w_), v, g, w)
        map_(lambda w_, m_, v_, lr_, c1_, c2_: w_ - lr_ * (m_ / c1_) / (pe.Sqrt(v_ / c2_) + eps),
             w, m, v, lr, c1, c2)


class AdamW(Adam):
    """torch.optim.AdamW: Adam whose weight decay is `w *= 1 - lr * weight_decay` before the
    update (decoupled from the moments); weight_decay defaults to 1e-2."""

    name = "adamw"
    decoupled = True

    def __init__(self, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, shard_over_replicas=False):
        super().__init__(lr, betas, eps, weight_decay, shard_over_replicas)


def _as(t: Tensor, w: Tensor) -> Tensor:
    """A one-element float32 tensor in w's dtype and rank, to combine with w in place."""
    return (t if t.dtype == w.dtype else cast(t, w.dtype)).reshape([1] * w.ndim)


def _number(value, what, minimum, maximum=np.inf, open_top=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not minimum <= value <= maximum \
            or (open_top and value == maximum):
        bounds = f"[{minimum}, {maximum}{')' if open_top else ']'}"
        raise BuildError(f"pd.optim: {what} must be a number in {bounds}, got {describe(value)}")
    return float(value)


def _own_elements(w, sharded: bool) -> Tensor:
    """The elements of weight w this replica updates: all of w, else its chunk."""
    if isinstance(w, ShardedVariable):
        return w.shard
    return local_shard(w) if sharded else w


def _write_back(updated: Tensor, w, sharded: bool) -> None:
    """Puts the updated float32 elements (w's own, its chunk or its master copy) into w."""
    home = w.shard if isinstance(w, ShardedVariable) else w
    if updated is home:  # updated in place
        return
    updated = updated if updated.dtype == w.dtype else cast(updated, w.dtype)
    if sharded and home is w:
        gather_into(updated, w)
    else:
        copy(updated, home)


def _pairs(weights, grads, what, sharded):
    weights = [weights] if isinstance(weights, (Tensor, ShardedVariable)) else list(weights)
    grads = [grads] if isinstance(grads, Tensor) else list(grads)
    if not weights or len(weights) != len(grads):
        raise BuildError(f"{what}: needs as many gradients as weights (and at least one), got {len(weights)} "
                         f"weights and {len(grads)} gradients")
    for i, (w, g) in enumerate(zip(weights, grads)):
        if not isinstance(w, (Tensor, ShardedVariable)) or not isinstance(g, Tensor):
            raise BuildError(f"{what}: weights[{i}] and grads[{i}] must be pd.Tensors (a weight may be a "
                             f"ShardedVariable), got {describe(w)} and {describe(g)}")
        if isinstance(w, ShardedVariable) and not sharded:
            raise BuildError(f"{what}: weights[{i}] {w!r} lives sharded over the replicas; step it with an "
                             "optimizer made with shard_over_replicas=True")
        if not is_floating(w.dtype) or g.shape != w.shape or g.dtype not in (w.dtype, float32):
            raise BuildError(f"{what}: grads[{i}] {g!r} must be a float tensor shaped like weights[{i}] {w!r}, "
                             "in its dtype or float32")
    return weights, grads


def _home_ipu(w: Weight) -> Optional[int]:
    """The IPU w's state and update belong on (placement.home_ipu of w, or of its shard)."""
    return home_ipu(w.shard if isinstance(w, ShardedVariable) else w)
