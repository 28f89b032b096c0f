"""Misuse catalogue of the Pythonic layer: every public entry point, called with wrong
arguments, raises a clear error that names the argument, never pybind11's messages.

Each Api lists its parameters with a kind and a good value; the catalogue substitutes
each bad value of the kind for one parameter at a time, the others staying good.
"""
import dataclasses
import linecache
import re
from typing import Callable

import numpy as np
import pytest

import popdsl as pd
from popdsl import poplar
from popdsl.nn import lstm

_PYBIND_LEAKS = re.compile(r"incompatible function arguments|Unable to cast|TypeError: __init__\(\)|"
                           r"object has no attribute|not subscriptable|not iterable|not callable")

DEVICE = pd.ipu_model(tiles=4)
G = pd.Graph(DEVICE)
OTHER = pd.Graph(DEVICE)
OTHER_X = OTHER.variable(pd.float32, (2, 3), name="other_x")

X = G.variable(pd.float32, (2, 3), name="x")  # the usual float operand
Y = G.variable(pd.float32, (2, 3), name="y")
A = G.variable(pd.float32, (2, 3), name="a")
B = G.variable(pd.float32, (3, 4), name="b")
C = G.variable(pd.float32, (2, 4), name="c")
I = G.variable(pd.uint32, (1,), name="i")
FLAG = G.variable(pd.bool_, (1,), name="flag")
FLAG2 = G.variable(pd.bool_, (1,), name="flag2")
QKV = G.variable(pd.float32, (3, 1, 4, 2), name="qkv")
Q = G.variable(pd.float32, (1, 4, 2), name="q")
VECTOR = G.variable(pd.float32, (3,), name="vector")
SCALES = G.variable(pd.float32, (3,), name="scales")
LONG_VECTOR = G.variable(pd.float32, (5,), name="long_vector")
INTEGERS = G.variable(pd.int32, (3, 1, 4, 2), name="integers")
SEEDS = pd.random.get_hw_seeds(G, prog=pd.Sequence())
IN_STREAM = G.host_to_device(pd.float32, (2, 3), name="misuse_in")
OUT_STREAM = G.device_to_host(pd.float32, (2, 3), name="misuse_out")
PARAMS = lstm.LstmParams(pd.float32, batch_size=1, time_steps=2, layer_sizes=(2, 2))
LSTM_STATE = lstm.create_initial_state(G, PARAMS)
LSTM_INPUT = lstm.create_input(G, PARAMS)
LSTM_WEIGHTS = lstm.create_weights(G, PARAMS)
MAIN = pd.Sequence("misuse_main")
with MAIN:
    pd.zero(X)
SESSION = pd.Session(G, {"main": MAIN}, device=DEVICE)


@dataclasses.dataclass
class Api:
    name: str  # as a user writes it
    call: Callable  # called with the parameters as keywords
    params: dict  # parameter -> (kind, good value)
    raises: tuple = (pd.BuildError,)
    good_call_builds: bool = True  # False where the working call compiles codelets (slow) or writes files


def _t(good):
    """A parameter that takes a pd.Tensor, with a tensor that fits."""
    return ("tensor", good)


TENSOR_BAD = [None, "x", 3, 1.5, [1, 2], np.ones((2, 3), np.float32), OTHER_X, object()]
OPERAND_BAD = [None, "x", [1, 2], np.array(["x"]), OTHER_X, object(), b"1"]  # numeric arrays are constants
BAD_VALUES = {
    "tensor": TENSOR_BAD,
    "operand": OPERAND_BAD,  # a tensor, a Python number or a numeric numpy array
    "count": [None, "3", 1.5, -1, 2 ** 70, [1], np.ones(2)],
    "positive": [None, "3", 1.5, -1, 0, 2 ** 70, [1]],
    "axis": ["0", 1.5, 5, -5, 2 ** 70, [0, "x"], object()],
    "dtype": ["floaty", np.float64, object, 3, [pd.float32], np.dtype("U3")],
    "shape": [None, "ab", (2.5,), (-1,), (2 ** 70,), [None], object()],
    "name": [3, 1.5, b"x", ["a"], object()],
    "prog": ["main", 3, X, object()],
    "kind": [None, 3, "nope", ["relu"]],
    "fn": [None, 3, "f", X],
    "graph": ["g", 3, X, DEVICE, object()],
    "options": ["fast", [1], 3, {3: "x"}, {"availableMemoryProportion": object()}],
    "value": [None, "x", [1, 2], object(), np.ones(3), X],
    "text": [None, 3, b"x", object()],
    "tile": [None, "0", 1.5, -1, 4, 2 ** 70],
    "stream_feed": ["x", 3, [1, 2], object()],
    "params": [None, "p", 3, X],
    "lstm_state": [None, "s", X, (X, Y), LSTM_WEIGHTS],
    "lstm_weights": [None, "w", X, (X, Y, A), LSTM_STATE],
    "lstm_input": [None, "x", X, np.ones((2, 1, 2), np.float32), OTHER_X],
    "case": [None, "3", 1.5, 2 ** 70, [1], np.ones(2)],
    "tiles": ["3", 1.5, -1, 0, 2 ** 70, [1], True],
    "constant": [None, "x", object(), [1, "a"], X, [[1], [1, 2]]],
    "optional_tensor": [t for t in TENSOR_BAD if t is not None],
    "decorated": [3, "f", X],
    "reshape": ["ab", (2.5,), (-2,), (2 ** 70,), [None], object(), (7,)],
    "title": [3, b"x", object()],
    "matrix": [LONG_VECTOR, QKV, C],  # a vector, a stack of matrices and a matrix whose shapes do not agree
    "qkv": [X, Q, INTEGERS, VECTOR],  # wrong ranks and dtype
    "session_tensor": [None, "nope", 3, 1.5, [1, 2], np.ones((2, 3), np.float32), OTHER_X, object()],
    "device": [None, "d", 3, X, G, object()],
    "mapping": ["cyclic", 1.5, -1, 99, [[(0, "a")]], object()],
    "init": ["x", object(), np.ones(5), X],
    "tensors": [None, "x", [1, 2], [X, "s"], [], [X, OTHER_X], X],
    "scale": ["x", [1], object(), X, np.ones(3)],
    "chunks": ["x", 3, (0, 2), (1.5, 2), object()],
    "path": [3, ["a"], object()],
    "probability": [None, "x", -0.1, 1.0, True, [0.5], object()],
}

def _seq(call):
    """Calls inside an open program (most ops need one)."""
    def inside(**kw):
        with pd.Sequence():
            return call(**kw)
    return inside


UNARY = ["exp", "log", "tanh", "sigmoid", "sqrt", "rsqrt", "abs", "neg", "square", "relu", "sin", "cos",
         "floor", "ceil"]
BINARY = ["max", "min", "pow"]
REDUCTIONS = ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_sum_squares", "reduce_logsumexp"]
NAME_AND_PROG = {"name": ("name", None), "prog": ("prog", None)}

APIS = (
    [Api(f"pd.{f}", _seq(lambda f=f, **kw: getattr(pd, f)(**kw)), {"x": ("operand", X), **NAME_AND_PROG})
     for f in UNARY]
    + [Api("pd.logical_not", _seq(lambda **kw: pd.logical_not(**kw)), {"x": ("operand", FLAG), **NAME_AND_PROG})]
    + [Api(f"pd.{f}", _seq(lambda f=f, **kw: getattr(pd, f)(**kw)),
           {"a": ("operand", X), "b": ("operand", Y), **NAME_AND_PROG}) for f in BINARY]
    + [Api(f"pd.{f}", _seq(lambda f=f, **kw: getattr(pd, f)(**kw)),
           {"a": ("operand", FLAG), "b": ("operand", FLAG2), **NAME_AND_PROG}) for f in ["logical_and", "logical_or"]]
    + [Api("pd.where", _seq(lambda **kw: pd.where(**kw)),
           {"condition": ("operand", FLAG), "a": ("operand", X), "b": ("operand", Y), **NAME_AND_PROG})]
    + [Api(f"pd.{f}", _seq(lambda f=f, **kw: getattr(pd, f)(**kw)),
           {"t": ("tensor", X), "axis": ("axis", 0), **NAME_AND_PROG}) for f in REDUCTIONS]
    + [Api(f"Tensor.{m}", _seq(lambda m=m, t=X, **kw: getattr(t, m)(**kw)), {"axis": ("axis", 0)})
       for m in ["sum", "max", "min", "prod"]]
    + [
        Api("pd.map", _seq(lambda fn, tensors: pd.map(fn, tensors)), {"fn": ("fn", lambda a: a + 1), "tensors": _t(X)}),
        Api("pd.map_", _seq(lambda fn, target: pd.map_(fn, target)), {"fn": ("fn", lambda a: a + 1),
                                                                       "target": _t(X)}),
        Api("pd.cast", _seq(lambda **kw: pd.cast(**kw)), {"t": _t(X), "dtype": ("dtype", pd.int32), **NAME_AND_PROG}),
        Api("pd.copy", _seq(lambda **kw: pd.copy(**kw)), {"src": _t(X), "dst": _t(Y), **NAME_AND_PROG}),
        Api("pd.fill", _seq(lambda **kw: pd.fill(**kw)), {"t": _t(X), "value": ("value", 1.0), **NAME_AND_PROG}),
        Api("pd.zero", _seq(lambda **kw: pd.zero(**kw)), {"t": _t(X), **NAME_AND_PROG}),
        Api("pd.concat", lambda **kw: pd.concat(**kw), {"tensors": ("tensors", [X, Y]), "axis": ("axis", 0)}),
        Api("pd.print_tensor", _seq(lambda **kw: pd.print_tensor(**kw)),
            {"t": _t(X), "title": ("title", "x"), "prog": ("prog", None)}),
        Api("pd.nonlinearity", _seq(lambda **kw: pd.nonlinearity(**kw)),
            {"t": _t(X), "kind": ("kind", "relu"), **NAME_AND_PROG}),
        Api("pd.nonlinearity_", _seq(lambda **kw: pd.nonlinearity_(**kw)),
            {"t": _t(X), "kind": ("kind", "relu"), **NAME_AND_PROG}),
        Api("pd.nonlinearity_grad", _seq(lambda **kw: pd.nonlinearity_grad(**kw)),
            {"activation": _t(X), "out_grad": _t(Y), "kind": ("kind", "relu"), **NAME_AND_PROG}),
        Api("pd.matmul", _seq(lambda **kw: pd.matmul(**kw)),
            {"a": ("matrix", A), "b": ("matrix", B), "options": ("options", None), "out": ("tensor", None),
             **NAME_AND_PROG}),
        Api("pd.matmul_acc", _seq(lambda **kw: pd.matmul_acc(**kw)),
            {"c": _t(C), "a": _t(A), "b": _t(B), "scale": ("scale", 1.0), "options": ("options", None),
             **NAME_AND_PROG}),
        Api("pd.Sequence", lambda **kw: pd.Sequence(**kw), {"name": ("name", None)}),
        Api("pd.Repeat", _seq(lambda **kw: pd.Repeat(**kw)), {"count": ("count", 2), "name": ("name", None)}),
        Api("pd.If", _seq(lambda **kw: pd.If(**kw)), {"predicate": _t(FLAG), "name": ("name", None)}),
        Api("pd.While", _seq(lambda **kw: pd.While(**kw)), {"cond_fn": ("fn", lambda: FLAG), "name": ("name", None)}),
        Api("pd.Switch", _seq(lambda **kw: pd.Switch(**kw)), {"index": _t(I), "name": ("name", None)}),
        Api("Switch.case", _seq(lambda value: pd.Switch(I).case(value)), {"value": ("case", 0)}),
        Api("pd.Graph", lambda **kw: pd.Graph(**kw), {"device_or_target": ("device", DEVICE)}, (TypeError,)),
        Api("pd.ipu_model", lambda **kw: pd.ipu_model(**kw),
            {"version": ("text", "ipu2"), "tiles": ("tiles", 4)}, (ValueError, TypeError)),
        Api("pd.as_type", lambda **kw: pd.as_type(**kw), {"dtype": ("dtype", pd.float32)}, (TypeError,)),
        Api("pd.name_scope", lambda name: _enter(pd.name_scope(name)), {"name": ("text", "s")}),
        Api("Graph.variable", lambda **kw: G.variable(**kw),
            {"dtype": ("dtype", pd.float32), "shape": ("shape", (2,)), "name": ("name", None),
             "mapping": ("mapping", "linear"), "init": ("init", None)}),
        Api("Graph.sliceable", lambda **kw: G.sliceable(**kw),
            {"dtype": ("dtype", pd.float32), "shape": ("shape", (2, 2)), "axes": ("axis", (0,)),
             "name": ("name", None)}),
        Api("Graph.constant", lambda **kw: G.constant(**kw),
            {"value": ("constant", 1.0), "dtype": ("dtype", None), "name": ("name", None),
             "mapping": ("mapping", "linear")}),
        Api("Graph.clone", lambda **kw: G.clone(**kw), {"t": _t(X), "name": ("name", None)}),
        Api("Graph.host_to_device", lambda **kw: G.host_to_device(**kw),
            {"dtype": ("dtype", pd.float32), "shape": ("shape", (2,)), "name": ("name", None)}),
        Api("Graph.device_to_host", lambda **kw: G.device_to_host(**kw),
            {"dtype": ("dtype", pd.float32), "shape": ("shape", (2,)), "name": ("name", None)}),
        Api("HostToDevice.read", _seq(lambda **kw: IN_STREAM.read(**kw)),
            {"into": ("optional_tensor", X), **NAME_AND_PROG}),
        Api("DeviceToHost.write", _seq(lambda **kw: OUT_STREAM.write(**kw)), {"t": _t(X), **NAME_AND_PROG}),
        Api("Graph.add_codelets", lambda **kw: G.add_codelets(**kw),
            {"source_or_path": ("text", "// nothing\n"), "flags": ("text", "")}),
        Api("Graph.function", lambda fn: G.function(fn), {"fn": ("decorated", lambda: None)}),
        Api("pd.compute_set", _seq(lambda **kw: pd.compute_set(**kw).__enter__()),
            {"name": ("name", None), "graph": ("graph", None), "prog": ("prog", None)}),
        Api("ComputeSet.vertex", _seq(lambda **kw: pd.compute_set(graph=G).__enter__().vertex(**kw)),
            {"vertex_type": ("text", "SumVertex"), "tile": ("tile", 0)}, good_call_builds=False),
        Api("pd.host_callback", _seq(lambda fn, tensors, name: pd.host_callback(fn, tensors, name=name)),
            {"fn": ("fn", lambda a: None), "tensors": _t(X), "name": ("name", None)}),
        Api("pd.cycle_count", _seq(lambda **kw: pd.cycle_count(**kw)),
            {"graph": ("graph", G), "tile": ("tile", 0), "sync": ("kind", "internal"), "name": ("name", None)}),
        Api("pd.cycle_stamp", _seq(lambda **kw: pd.cycle_stamp(**kw)),
            {"graph": ("graph", G), "tile": ("tile", 0), "sync": ("kind", "internal"), **NAME_AND_PROG}),
        Api("pd.argmax", _seq(lambda **kw: pd.argmax(**kw)), {"t": _t(X), "axis": ("axis", 1), **NAME_AND_PROG}),
        Api("pd.argmin", _seq(lambda **kw: pd.argmin(**kw)), {"t": _t(X), "axis": ("axis", 0), **NAME_AND_PROG}),
        Api("pd.topk", _seq(lambda **kw: pd.topk(**kw)),
            {"t": _t(X), "k": ("positive", 2), "axis": ("axis", 1), **NAME_AND_PROG}),
        Api("pd.gather", _seq(lambda **kw: pd.gather(**kw)),
            {"t": _t(X), "indices": _t(I), "axis": ("axis", 1), **NAME_AND_PROG}),
        Api("pd.nn.layer_norm", _seq(lambda **kw: pd.nn.layer_norm(**kw)),
            {"x": _t(X), "gamma": ("optional_tensor", SCALES), "beta": ("optional_tensor", None),
             "axes": ("positive", 1)}),
        Api("pd.nn.group_norm", _seq(lambda **kw: pd.nn.group_norm(**kw)),
            {"x": _t(X), "groups": ("positive", 3), "gamma": ("optional_tensor", None),
             "beta": ("optional_tensor", SCALES)}),
        Api("pd.random.dropout", _seq(lambda **kw: pd.random.dropout(**kw)),
            {"x": _t(X), "rate": ("probability", 0.5), "seed": ("optional_tensor", None),
             "seed_modifier": ("count", 0), **NAME_AND_PROG}),
        *[Api(f"pd.random.{f}", _seq(lambda f=f, **kw: getattr(pd.random, f)(**kw)),
              {"graph": ("graph", G), "shape": ("shape", (4,)), "dtype": ("dtype", pd.float32),
               "seed": ("optional_tensor", None), "seed_modifier": ("count", 1), **NAME_AND_PROG})
          for f in ("uniform", "normal", "truncated_normal", "bernoulli")],
        Api("pd.random.get_hw_seeds", _seq(lambda **kw: pd.random.get_hw_seeds(**kw)),
            {"graph": ("graph", G), **NAME_AND_PROG}),
        Api("pd.random.set_hw_seeds", _seq(lambda **kw: pd.random.set_hw_seeds(**kw)),
            {"seeds": _t(SEEDS), **NAME_AND_PROG}),
        Api("Tensor.reshape", lambda shape: X.reshape(shape), {"shape": ("reshape", (3, 2))}),
        Api("Tensor.transpose", lambda perm: X.transpose(perm), {"perm": ("axis", (1, 0))}),
        Api("Tensor.expand", lambda axis: X.expand(axis), {"axis": ("axis", 0)}),
        Api("Tensor.squeeze", lambda axis: X.expand(0).squeeze(axis), {"axis": ("axis", 0)}),
        Api("Tensor.broadcast", lambda shape: X.broadcast(shape), {"shape": ("shape", (4, 2, 3))}),
        Api("Tensor.at.get", _seq(lambda index: X.at[index].get()), {"index": _t(I)}),
        Api("Tensor.at.set", _seq(lambda value: X.at[I].set(value)), {"value": ("tensor", X[0])}),
        Api("Session", lambda **kw: pd.Session(**kw),
            {"graph": ("graph", G), "programs": ("value", MAIN), "device": ("device", None),
             "options": ("options", None), "cache_dir": ("path", None), "seed": ("count", None),
             "name": ("name", None)}, (TypeError, pd.SessionError, pd.BuildError)),
        Api("Session.write", lambda **kw: _attached(SESSION.write, **kw),
            {"t": ("session_tensor", X), "values": ("value", np.zeros((2, 3), np.float32))},
            (TypeError, pd.SessionError)),
        Api("Session.read", lambda **kw: _attached(SESSION.read, **kw), {"t": ("session_tensor", X)},
            (TypeError, pd.SessionError)),
        Api("Session.run", lambda **kw: _attached(SESSION.run, **kw),
            {"name": ("name", "main"), "feeds": ("stream_feed", None)}, (TypeError, pd.SessionError)),
        Api("Session.save", lambda **kw: SESSION.save(**kw), {"path": ("path", "unused")}, (TypeError,),
            good_call_builds=False),
        Api("Session.load", lambda **kw: pd.Session.load(**kw), {"path": ("path", "unused")}, (TypeError,),
            good_call_builds=False),
        Api("pd.nn.flash_attention_qkv_packed", _seq(lambda **kw: pd.nn.flash_attention_qkv_packed(**kw)),
            {"qkv": _t(QKV), "num_chunks_q": ("positive", 2), "num_chunks_kv": ("positive", 2)}),
        Api("pd.nn.flash_attention_qkv_packed_grad", _seq(lambda **kw: pd.nn.flash_attention_qkv_packed_grad(**kw)),
            {"grad": _t(Q), "qkv": _t(QKV), "num_chunks_q": ("positive", 2), "num_chunks_kv": ("positive", 2)}),
        Api("pd.nn.vanilla_attention", _seq(lambda **kw: pd.nn.vanilla_attention(**kw)), {"qkv": _t(QKV)}),
        Api("pd.nn.vanilla_attention (qkv layout)", _seq(lambda **kw: pd.nn.vanilla_attention(**kw)),
            {"qkv": ("qkv", QKV)}),
        Api("pd.nn.flash_attention_qkv_packed (qkv layout)",
            _seq(lambda **kw: pd.nn.flash_attention_qkv_packed(**kw, num_chunks_q=2, num_chunks_kv=2)),
            {"qkv": ("qkv", QKV)}),
        Api("Tensor in-place operator", _seq(lambda other: X.__iadd__(other)), {"other": ("operand", Y)}),
        Api("pd.map traced max", _seq(lambda b: pd.map(lambda a: pd.max(a, b), X)), {"b": ("operand", 1.0)}),
        Api("pd.map traced where", _seq(lambda condition: pd.map(lambda a: pd.where(condition, a, 0.0), X)),
            {"condition": ("operand", True)}),
        Api("pd.nn.vanilla_attention_grad", _seq(lambda **kw: pd.nn.vanilla_attention_grad(**kw)),
            {"grad": _t(Q), "qkv": _t(QKV)}),
        Api("pd.nn.scaled_dot_product_attention", _seq(lambda **kw: pd.nn.scaled_dot_product_attention(**kw)),
            {"q": _t(Q), "k": _t(Q), "v": _t(Q), "scale": ("scale", None), "num_chunks": ("chunks", None)}),
        Api("pd.nn.chunk_counts", lambda **kw: pd.nn.chunk_counts(**kw),
            {"length": ("positive", 4), "head_dim": ("positive", 2)}, (pd.BuildError, ValueError)),
        Api("pd.nn.triu_offset_sequence", lambda **kw: pd.nn.triu_offset_sequence(**kw),
            {"rows": ("positive", 2), "cols": ("positive", 2)}, (ValueError,)),
        Api("pd.nn.causal_mask_blocks", _seq(lambda **kw: pd.nn.causal_mask_blocks(**kw)), {"ref": _t(X)},
            (ValueError,)),
        Api("pd.nn.lstm.LstmParams", lambda **kw: lstm.LstmParams(**kw),
            {"dtype": ("dtype", pd.float32), "batch_size": ("positive", 1), "time_steps": ("positive", 2),
             "layer_sizes": ("shape", (2, 2)), "activation": ("kind", "tanh")}),
        Api("pd.nn.lstm.create_input", lambda **kw: lstm.create_input(**kw),
            {"graph": ("graph", G), "params": ("params", PARAMS), "name": ("name", "lstm/input")}),
        Api("pd.nn.lstm.create_weights", lambda **kw: lstm.create_weights(**kw),
            {"graph": ("graph", G), "params": ("params", PARAMS), "name": ("name", "lstm/weights")}),
        Api("pd.nn.lstm.forward", _seq(lambda **kw: lstm.forward(**kw)),
            {"params": ("params", PARAMS), "state": ("lstm_state", LSTM_STATE), "x": ("lstm_input", LSTM_INPUT),
             "weights": ("lstm_weights", LSTM_WEIGHTS), "options": ("options", None)}),
        Api("pd.nn.lstm.fwd_flops", lambda **kw: lstm.fwd_flops(**kw), {"params": ("params", PARAMS)}),
    ]
)


def _enter(block):
    with block:
        pass


def _attached(method, **kwargs):
    with SESSION:
        return method(**kwargs)


def _cases():
    for api in APIS:
        tensor_params = [p for p, (kind, _) in api.params.items() if kind in ("tensor", "operand")]
        for param, (kind, good) in api.params.items():
            for bad in BAD_VALUES[kind]:
                if bad is good:  # None is a bad count for Repeat but the default seed of a Session
                    continue
                if bad is OTHER_X and len(tensor_params) < 2:  # another graph's tensor is fine on its own
                    continue
                yield pytest.param(api, param, bad, id=f"{api.name}-{param}-{type(bad).__name__}:{str(bad)[:20]}")


def test_catalogue_is_broad():
    assert len(list(_cases())) > 1000


@pytest.mark.parametrize("api", [api for api in APIS if api.good_call_builds], ids=lambda api: api.name)
def test_the_good_arguments_work(api):
    """Each misuse case differs from a working call in one argument only."""
    api.call(**{p: good for p, (_kind, good) in api.params.items()})


@pytest.mark.parametrize("api,param,bad", list(_cases()))
def test_misuse_raises_a_clear_error_naming_the_argument(api, param, bad):
    kwargs = {p: good for p, (_kind, good) in api.params.items()}
    kwargs[param] = bad
    allowed = api.raises + (TypeError,) if api.params[param][0] == "dtype" else api.raises  # as numpy's dtypes
    with pytest.raises(allowed) as caught:
        api.call(**kwargs)
    message = str(caught.value)
    assert not _PYBIND_LEAKS.search(message), message
    if isinstance(caught.value, pd.BuildError):
        location = re.match(r"test_pythonic_misuse\.py:(\d+): ", message)
        assert location, message
        # The rest of the message must name the argument, not the quoted source line
        statement = linecache.getline(__file__, int(location[1])).strip()
        message = message[location.end():].removeprefix(statement + ": ")
    assert re.search(rf"\b{re.escape(param)}\b", message), message


# --- Programs of one graph in a session of another --------------------------------------------


def _call_their_function(theirs, t):
    @theirs.function
    def bump():
        pd.fill(t, 1.0)
    bump()


def _call_their_callback(theirs, t):
    pd.host_callback(lambda values: None, t, name="their_callback")


def _read_their_stream(theirs, t):
    theirs.host_to_device(pd.float32, (2,), name="their_in").read(t)


@pytest.mark.needs_emulator("which graph functions belong to (the other cases check tensors)")
@pytest.mark.parametrize("use, element", [
    (_call_their_function, r"Call '[^']*bump @ [^']*test_pythonic_misuse\.py:\d+: bump\(\)': function 0 '[^']*bump'"),
    (_call_their_callback, r"Call\(host function\) 'their_callback @ [^']*test_pythonic_misuse\.py:\d+: [^']*': tensor "
                           r"'theirs_t' \[2\] float"),
    (_read_their_stream, r"StreamCopy\(host to device\) '[^']*': tensor 'theirs_t' \[2\] float"),
], ids=["function", "host-callback", "stream"])
def test_a_session_refuses_a_program_built_on_another_graph(use, element):
    ours, theirs = pd.Graph(DEVICE), pd.Graph(DEVICE)
    ours.variable(pd.float32, (2,), name="ours_t")
    t = theirs.variable(pd.float32, (2,), name="theirs_t")
    with pd.Sequence() as main:
        use(theirs, t)
    with pytest.raises(poplar.graph_program_compilation_error,
                       match=element + r" belongs to a different graph \(graph #\d+\) than graph #\d+, "
                                       r"the graph being compiled"):
        pd.Session(ours, main, device=DEVICE)


# --- One error path each, beyond the catalogue's argument kinds -------------------------------


def _fresh():
    g = pd.Graph(DEVICE)
    return g, g.variable(pd.float32, (2, 3), name="fx"), g.variable(pd.uint32, (1,), name="fi")


@pytest.mark.parametrize("build, message", [
    (lambda g, x, i: pd.max(1, 2), "pd.max: a or pd.max: b must be a pd.Tensor, got only numbers (1, 2)"),
    (lambda g, x, i: pd.map(lambda a: a, x, x), "pd.map: fn cannot take the 2 tensor(s) given"),
    (lambda g, x, i: pd.map(lambda a: 3, x), "the function given to pd.map must return an expression of its "
                                             "arguments, not int"),
    (lambda g, x, i: pd.map(lambda a: a), "pd.map(fn, *tensors) needs one or more pd.Tensor arguments"),
    (lambda g, x, i: pd.copy(x, g.variable(pd.int32, (2, 3), name="ints")), "cannot copy"),
    (lambda g, x, i: pd.copy(x, g.variable(pd.float32, (5,), name="five")), "dtypes and element counts must match"),
    (lambda g, x, i: pd.concat([x, g.variable(pd.float32, (2, 4), name="wide")], axis=0), "concat"),
    (lambda g, x, i: x[0, 0, 0], "too many indices (3) for"),
    (lambda g, x, i: x[True], "boolean index True on"),
    (lambda g, x, i: x[2], "index 2 is out of range for dimension 0 of size 2 of"),
    (lambda g, x, i: x[-3], "index -3 is out of range for dimension 0 of size 2 of"),
    (lambda g, x, i: x["row"], "static indexing takes ints and slices; use t.at[i] for a tensor index, not 'row'"),
    (lambda g, x, i: x.squeeze(1), "cannot squeeze dimension(s) [1] of"),
    (lambda g, x, i: x.broadcast((4, 3)), "broadcast"),
    (lambda g, x, i: x.at[i, i, i], "too many indices (3) for"),
    (lambda g, x, i: x.at[g.variable(pd.float32, (1,), name="fidx")], "an index must be a one-element integer tensor"),
    (lambda g, x, i: x.at[g.variable(pd.uint32, (2,), name="pair")], "an index must be a one-element integer tensor"),
    (lambda g, x, i: x.at[0], "t.at[...] takes index tensors and ':' only; use t[...] for static slices"),
    (lambda g, x, i: x.at[:], "t.at[...] needs at least one index tensor"),
    (lambda g, x, i: g.variable(pd.float32, (4,), mapping=[[(0, 2)], [(3, 2)]]),
     "has more tiles than the target's 4 or an interval that is not 0 <= begin <= end"),
    (lambda g, x, i: g.variable(pd.float32, (4,), mapping=[[(0, 1)]] * 5),
     "has more tiles than the target's 4"),
    (lambda g, x, i: g.variable(pd.float32, (4,), mapping=[["a"]]),
     "mapping must be 'linear', None, a tile number or per-tile lists of (begin, end) intervals"),
    (lambda g, x, i: [g.host_to_device(pd.float32, (2,), name="twice") for _ in range(2)],
     "a stream named 'twice' already exists"),
    (lambda g, x, i: g.host_to_device(pd.float32, (2, 3), name="in6").read(g.variable(pd.int32, (2, 3), name="iv")),
     "stream 'in6' carries (2, 3) float, not <pd.Tensor 'iv'"),
    (lambda g, x, i: g.device_to_host(pd.float32, (3,), name="out3").write(x),
     "stream 'out3' carries (3,) float, not <pd.Tensor 'fx'"),
    (lambda g, x, i: [pd.host_callback(lambda v: None, x, name="cb") for _ in range(2)],
     "a host callback named 'cb' already exists"),
    (lambda g, x, i: pd.host_callback(lambda: None), "host_callback needs at least one input or output tensor"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None)
def test_build_errors_name_the_problem(build, message):
    g, x, i = _fresh()
    with pd.Sequence():
        with pytest.raises(pd.BuildError) as caught:
            build(g, x, i)
    assert message in str(caught.value)
    assert not _PYBIND_LEAKS.search(str(caught.value)), caught.value


@pytest.mark.parametrize("use, message", [
    (lambda x: x + "one", "unsupported operand type"),
    (lambda x: list(x), "is a device tensor: iterating would unroll the graph in Python"),
    (lambda x: bool(x), "is only known when the program runs; use `with pd.If(t):`"),
    (lambda x: np.asarray(x), "lives on the device; read it with session.read(t)"),
    (lambda x: len(x[0, 0]), "len() of the scalar tensor"),
], ids=["operator", "iter", "bool", "array", "len"])
def test_python_protocols_a_device_tensor_refuses(use, message):
    _, x, _ = _fresh()
    with pd.Sequence(), pytest.raises(TypeError) as caught:
        use(x)
    assert message in str(caught.value)


def test_setting_a_static_slice_from_itself_a_tensor_and_a_number():
    g, x, _ = _fresh()
    row = g.variable(pd.float32, (3,), name="row")
    with pd.Sequence() as main:
        x[0] = x[0]  # a view set from itself: nothing to do
        x[1, :2] = row[1:]  # copied
        x[0, 2] = 7.5  # filled
        x[1, 2] = row[0]
        x[:, 1] = row[2]  # a scalar broadcast into a column
    with pd.Session(g, main, device=DEVICE) as s:
        start = np.arange(6, dtype=np.float32).reshape(2, 3)
        s.write(x, start)
        s.write(row, np.array([10, 20, 30], np.float32))
        s.run()
        np.testing.assert_array_equal(s.read(x), [[0, 30, 7.5], [20, 30, 10]])
    assert len(x) == 2
