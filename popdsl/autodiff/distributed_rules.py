"""Gradient rules of the ops that move data between IPUs and between replicas: pd.ipu_copy and
pd.all_reduce (the other collectives have none yet: rules.py says why)."""
from popdsl._core import gcl
from popdsl.autodiff.registry import gradient
from popdsl.debug import BuildError
from popdsl.ops import copy
from popdsl.replication import all_reduce
from popdsl.tensor import Tensor


@gradient("pd.ipu_copy")
def _ipu_copy(op, grads):
    """The gradient goes back to where the input lives: a copy into a tensor mapped like it."""
    source = op.inputs[0]
    back = source.graph.track(Tensor(source.graph.top.clone(source.raw, "ipu_copy/grad"), source.graph))
    return [copy(grads[0], back)]


@gradient("pd.all_reduce")
def _all_reduce(op, grads):
    """A sum's input gradient is the sum of its output's gradients over the group (each
    replica's loss depends on every input); a mean's is their mean."""
    operator = op.attrs["operator"]
    if operator not in (gcl.CollectiveOperator.ADD, gcl.CollectiveOperator.MEAN):
        raise BuildError(f"pd.grad: pd.all_reduce with op {operator.name} has no gradient (only add and mean)")
    return [all_reduce(grads[0], op=operator, group=op.attrs["group"])]
