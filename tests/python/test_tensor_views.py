"""poplar.Tensor's view algebra, checked against numpy.

Every element of every variable in a test graph gets a global id (the ids of
variable k start where those of variable k-1 end). A view is modelled by the numpy
array of the ids it shows: each view operation is applied to the poplar tensor
and, independently, to the id array, so numpy says which variable element each
view element must be. The emulator's queries, host reads and copies must agree.
"""
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, note, settings, strategies as st

from popdsl import poplar, program

# Bounds the growing operations (broadcast, upsample, concat) so views stay small.
MAX_GROWABLE_ELEMENTS = 100
CHAIN_SETTINGS = settings(max_examples=200, deadline=None)


@pytest.fixture(scope="module")
def device():
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    return model.createDevice()


@dataclass
class View:
    tensor: poplar.Tensor
    ids: np.ndarray  # the global id of each element, shaped like the view
    expr: str  # how the view was built, for failure reports


class IdGraph:
    """A graph of INT variables whose elements carry consecutive global ids."""

    def __init__(self, device):
        self.graph = poplar.Graph(device.getTarget())
        self.variables: list[View] = []
        self.id_ends: list[int] = []  # one past the last id of each variable

    @property
    def num_ids(self):
        return self.id_ends[-1] if self.id_ends else 0

    def add_variable(self, shape) -> View:
        name = f"v{len(self.variables)}"
        tensor = self.graph.addVariable(poplar.INT, list(shape), name)
        self.graph.setTileMapping(tensor, 0)
        first = self.num_ids
        ids = np.arange(first, first + math.prod(shape)).reshape(shape)
        variable = View(tensor, ids, name)
        self.variables.append(variable)
        self.id_ends.append(first + ids.size)
        return variable

    def owner(self, ids):
        """Index of the variable each id belongs to."""
        return np.searchsorted(self.id_ends, ids, side="right")

    def first_id(self, variable_index):
        return self.id_ends[variable_index] - self.variables[variable_index].ids.size


# Drawing view operations. Each op draws valid arguments for view `v`, applies
# the poplar operation to v.tensor and the numpy model of it to v.ids.


def draw_dim(draw, v):
    return draw(st.integers(0, v.ids.ndim - 1))


def draw_range(draw, size):
    begin = draw(st.integers(0, size))
    return begin, draw(st.integers(begin, size))


def draw_shape_of_size(draw, size):
    """A random shape (rank up to 4) with exactly `size` elements."""
    if size == 0:
        shape = draw(st.lists(st.integers(0, 5), min_size=1, max_size=4))
        shape[draw(st.integers(0, len(shape) - 1))] = 0
        return shape
    rank = draw(st.integers(1 if size > 1 else 0, 4))
    shape = [1] * rank
    factor = 2
    while size > 1:  # deal the prime factors out to random dimensions
        while size % factor:
            factor += 1
        shape[draw(st.integers(0, rank - 1))] *= factor
        size //= factor
    return shape


def op_slice(draw, g, v):
    d = draw_dim(draw, v)
    begin, end = draw_range(draw, v.ids.shape[d])
    ids = v.ids[(slice(None),) * d + (slice(begin, end),)]
    if draw(st.booleans()):
        return View(v.tensor.slice(poplar.Interval(begin, end), d), ids,
                    f"{v.expr}.slice(Interval({begin}, {end}), {d})")
    return View(v.tensor.slice(begin, end, d), ids, f"{v.expr}.slice({begin}, {end}, {d})")


def op_slice_all_dims(draw, g, v):
    ranges = [draw_range(draw, size) for size in v.ids.shape]
    begins = [b for b, _ in ranges]
    ends = [e for _, e in ranges]
    ids = v.ids[tuple(slice(b, e) for b, e in ranges)]
    return View(v.tensor.slice(begins, ends), ids, f"{v.expr}.slice({begins}, {ends})")


def op_getitem(draw, g, v):
    i = draw(st.integers(0, v.ids.shape[0] - 1))
    return View(v.tensor[i], v.ids[i], f"{v.expr}[{i}]")


def op_index(draw, g, v):
    indices = []
    for size in v.ids.shape:  # index a prefix of the non-empty leading dims
        if size == 0 or (indices and draw(st.booleans())):
            break
        indices.append(draw(st.integers(0, size - 1)))
    return View(v.tensor.index(indices), v.ids[tuple(indices)], f"{v.expr}.index({indices})")


def op_reshape(draw, g, v):
    shape = draw_shape_of_size(draw, v.ids.size)
    return View(v.tensor.reshape(shape), v.ids.reshape(shape), f"{v.expr}.reshape({shape})")


def op_reshape_partial(draw, g, v):
    begin, end = draw_range(draw, v.ids.ndim)
    middle = draw_shape_of_size(draw, math.prod(v.ids.shape[begin:end]))
    shape = v.ids.shape[:begin] + tuple(middle) + v.ids.shape[end:]
    return View(v.tensor.reshapePartial(begin, end, middle), v.ids.reshape(shape),
                f"{v.expr}.reshapePartial({begin}, {end}, {middle})")


def op_flatten(draw, g, v):
    return View(v.tensor.flatten(), v.ids.reshape(-1), f"{v.expr}.flatten()")


def op_flatten_partial(draw, g, v):
    begin = draw(st.integers(0, v.ids.ndim - 1))
    end = draw(st.integers(begin + 1, v.ids.ndim))
    shape = v.ids.shape[:begin] + (math.prod(v.ids.shape[begin:end]),) + v.ids.shape[end:]
    return View(v.tensor.flatten(begin, end), v.ids.reshape(shape), f"{v.expr}.flatten({begin}, {end})")


def op_dim_shuffle(draw, g, v):
    perm = draw(st.permutations(range(v.ids.ndim)))
    return View(v.tensor.dimShuffle(perm), np.transpose(v.ids, perm), f"{v.expr}.dimShuffle({perm})")


def op_dim_shuffle_partial(draw, g, v):
    count = draw(st.integers(0, v.ids.ndim))
    source = draw(st.permutations(range(v.ids.ndim)))[:count]
    destination = draw(st.permutations(range(v.ids.ndim)))[:count]
    return View(v.tensor.dimShufflePartial(source, destination), np.moveaxis(v.ids, source, destination),
                f"{v.expr}.dimShufflePartial({source}, {destination})")


def op_dim_roll(draw, g, v):
    old, new = draw_dim(draw, v), draw_dim(draw, v)
    return View(v.tensor.dimRoll(old, new), np.moveaxis(v.ids, old, new), f"{v.expr}.dimRoll({old}, {new})")


def op_transpose(draw, g, v):
    return View(v.tensor.transpose(), v.ids.T, f"{v.expr}.transpose()")


def op_expand(draw, g, v):
    indices = sorted(draw(st.lists(st.integers(0, v.ids.ndim), max_size=2)))
    shape = []
    for d in range(v.ids.ndim + 1):  # a 1 before each listed original dim
        shape += [1] * indices.count(d)
        if d < v.ids.ndim:
            shape.append(v.ids.shape[d])
    return View(v.tensor.expand(indices), v.ids.reshape(shape), f"{v.expr}.expand({indices})")


def op_squeeze(draw, g, v):
    unit_dims = [d for d, size in enumerate(v.ids.shape) if size == 1]
    indices = draw(st.lists(st.sampled_from(unit_dims), unique=True))
    return View(v.tensor.squeeze(indices), np.squeeze(v.ids, axis=tuple(indices)),
                f"{v.expr}.squeeze({indices})")


def op_broadcast(draw, g, v):
    d, n = draw_dim(draw, v), draw(st.integers(1, 3))
    return View(v.tensor.broadcast(n, d), np.concatenate([v.ids] * n, axis=d), f"{v.expr}.broadcast({n}, {d})")


def op_upsample(draw, g, v):
    d, scale = draw_dim(draw, v), draw(st.integers(1, 3))
    return View(v.tensor.upsample(scale, d, poplar.UpsampleMethod.REPEAT), np.repeat(v.ids, scale, axis=d),
                f"{v.expr}.upsample({scale}, {d})")


def op_sub_sample(draw, g, v):
    d, stride = draw_dim(draw, v), draw(st.integers(1, 3))
    ids = v.ids[(slice(None),) * d + (slice(None, None, stride),)]
    return View(v.tensor.subSample(stride, d), ids, f"{v.expr}.subSample({stride}, {d})")


def reversed_view(v, d):
    return View(v.tensor.reverse(d), np.flip(v.ids, d), f"{v.expr}.reverse({d})")


def op_reverse(draw, g, v):
    return reversed_view(v, draw_dim(draw, v))


def draw_strided_range(draw, variable, count):
    """`count` elements of `variable`: every stride-th of a flat range, maybe reversed."""
    stride = draw(st.integers(1, 3))
    if (count - 1) * stride + 1 > variable.ids.size:
        stride = 1
    span = (count - 1) * stride + 1 if count else 0
    begin = draw(st.integers(0, variable.ids.size - span))
    tensor = variable.tensor.flatten().slice(begin, begin + span).subSample(stride, 0)
    ids = variable.ids.ravel()[begin:begin + span:stride]
    expr = f"{variable.expr}.flatten().slice({begin}, {begin + span}).subSample({stride}, 0)"
    if draw(st.booleans()):
        return View(tensor.reverse(0), ids[::-1], f"{expr}.reverse(0)")
    return View(tensor, ids, expr)


def draw_partner(draw, g, shape):
    """A view shaped `shape` for concat and append: elements of the graph's
    first variable when it has enough (so they may continue or overlap the
    view), else a new variable."""
    first_variable = g.variables[0]
    count = math.prod(shape)
    if count > first_variable.ids.size or draw(st.booleans()):
        return g.add_variable(shape)
    part = draw_strided_range(draw, first_variable, count)
    return View(part.tensor.reshape(shape), part.ids.reshape(shape), f"{part.expr}.reshape({shape})")


def op_concat(draw, g, v):
    d = draw_dim(draw, v)
    partner = draw(st.sampled_from(["itself", "reversed", "other"]))
    if partner == "itself":
        other = v
    elif partner == "reversed":
        other = reversed_view(v, d)
    else:
        shape = list(v.ids.shape)
        shape[d] = draw(st.integers(0, 3))
        other = draw_partner(draw, g, shape)
    first, second = (v, other) if draw(st.booleans()) else (other, v)
    ids = np.concatenate([first.ids, second.ids], axis=d)
    if draw(st.booleans()):
        return View(poplar.concat([first.tensor, second.tensor], d), ids,
                    f"concat([{first.expr}, {second.expr}], {d})")
    return View(poplar.concat(first.tensor, second.tensor, d), ids, f"concat({first.expr}, {second.expr}, {d})")


def op_append(draw, g, v):
    d = draw_dim(draw, v)
    if v.ids.shape[d] > 0 and draw(st.booleans()):
        i = draw(st.integers(0, v.ids.shape[d] - 1))
        other = View(v.tensor.slice(i, i + 1, d).squeeze([d]), np.take(v.ids, i, axis=d),
                     f"{v.expr}.slice({i}, {i + 1}, {d}).squeeze([{d}])")
    else:
        other = draw_partner(draw, g, v.ids.shape[:d] + v.ids.shape[d + 1:])
    ids = np.concatenate([v.ids, np.expand_dims(other.ids, d)], axis=d)
    return View(poplar.append(v.tensor, other.tensor, d), ids, f"append({v.expr}, {other.expr}, {d})")


def applicable_ops(shape):
    ops = [op_reshape, op_reshape_partial, op_flatten, op_expand]
    if shape:
        ops += [op_slice, op_slice_all_dims, op_flatten_partial, op_dim_shuffle, op_dim_shuffle_partial,
                op_dim_roll, op_sub_sample, op_reverse]
        if shape[0] > 0:
            ops += [op_getitem, op_index]
        if 1 in shape:
            ops.append(op_squeeze)
        if len(shape) == 2:
            ops.append(op_transpose)
        if math.prod(shape) <= MAX_GROWABLE_ELEMENTS:
            ops += [op_broadcast, op_upsample, op_concat, op_append]
    return ops


variable_shapes = st.lists(st.integers(0, 5), max_size=4)


def draw_view(draw, g, start, max_ops=6):
    """A chain of 1..max_ops random view operations applied to `start`."""
    v = start
    for _ in range(draw(st.integers(1, max_ops))):
        op = draw(st.sampled_from(applicable_ops(v.ids.shape)))
        v = op(draw, g, v)
    note(f"view: {v.expr}")
    return v


# Expectations computed from the id arrays.


def expected_contiguous_regions(g, ids):
    """Maximal [begin, end) ranges of flat positions showing consecutive elements of one variable."""
    flat = ids.ravel()
    owner = g.owner(flat)
    regions, begin = [], 0
    for pos in range(1, flat.size + 1):
        if pos == flat.size or flat[pos] != flat[pos - 1] + 1 or owner[pos] != owner[pos - 1]:
            regions.append((begin, pos))
            begin = pos
    return regions


def expected_var_regions(g, ids):
    """(variable index, first element, end element) of each contiguous region."""
    flat = ids.ravel()
    out = []
    for begin, end in expected_contiguous_regions(g, ids):
        var = int(g.owner(flat[begin]))
        first = int(flat[begin]) - g.first_id(var)
        out.append((var, first, first + end - begin))
    return out


def has_repeats(ids):
    return np.unique(ids).size != ids.size


def read(engine, handle, shape):
    out = np.zeros(shape, np.int32)
    engine.readTensor(handle, out)
    return out


def initial_memory(g):
    """Distinct initial contents for every id, set on the graph's variables."""
    memory = (3 * np.arange(g.num_ids) + 1).astype(np.int32)
    for variable in g.variables:
        if variable.ids.size:
            g.graph.setInitialValue(variable.tensor, memory[variable.ids])
    return memory


def add_source_constant(g, values):
    constant = g.graph.addConstant(poplar.INT, [values.size], values, "source")
    g.graph.setTileMapping(constant, 0)
    return constant


def assert_queries_match(g, v):
    """Shape and element queries of view `v` agree with its id array."""
    t, ids = v.tensor, v.ids
    assert t.shape() == list(ids.shape)
    assert t.rank() == ids.ndim
    assert t.numElements() == ids.size
    assert [t.dim(i) for i in range(ids.ndim)] == list(ids.shape)

    regions = expected_contiguous_regions(g, ids)
    assert [(r.begin(), r.end()) for r in t.getContiguousRegions()] == regions
    whole_variable_refs = {var.tensor.getVarRegions()[0].var: k
                           for k, var in enumerate(g.variables) if var.ids.size}
    assert [(whole_variable_refs[r.var], r.interval.begin(), r.interval.end())
            for r in t.getVarRegions()] == expected_var_regions(g, ids)

    assert t.containsAliases() == has_repeats(ids)
    assert t.isContiguous() == (len(regions) <= 1)
    assert not t.containsConstant()
    assert t.isParallelWriteable() == (not has_repeats(ids))
    for variable in g.variables:
        assert t.intersectsWith(variable.tensor) == bool(np.intersect1d(ids, variable.ids).size)
    assert t == t.flatten().reshape(list(ids.shape))


def assert_reads_and_writes_match(device, g, v):
    """A host read of view `v` shows the variables' elements numpy picks, and a
    copy into `v` writes them (or, when `v` repeats elements, fails to compile)."""
    memory = initial_memory(g)
    g.graph.createHostRead("view", v.tensor)
    for k, variable in enumerate(g.variables):
        g.graph.createHostRead(f"var{k}", variable.tensor)
    source_values = 1000 + np.arange(v.ids.size, dtype=np.int32)
    write = program.Copy(add_source_constant(g, source_values), v.tensor)

    if has_repeats(v.ids):
        # Two view elements are one variable element: writing is ambiguous.
        with pytest.raises(poplar.graph_program_compilation_error, match="alias"):
            poplar.Engine(g.graph, [program.Sequence(), write])
        engine = poplar.Engine(g.graph, program.Sequence())
    else:
        engine = poplar.Engine(g.graph, [program.Sequence(), write])
    engine.load(device)

    engine.run(0)
    np.testing.assert_array_equal(read(engine, "view", v.ids.shape), memory[v.ids])
    if not has_repeats(v.ids):
        engine.run(1)
        memory[v.ids] = source_values.reshape(v.ids.shape)
    for k, variable in enumerate(g.variables):
        np.testing.assert_array_equal(read(engine, f"var{k}", variable.ids.shape), memory[variable.ids])


# 1, 2 and 4: random view chains.


@CHAIN_SETTINGS
@given(data=st.data())
def test_view_chain_shape_and_queries_match_numpy(device, data):
    g = IdGraph(device)
    assert_queries_match(g, draw_view(data.draw, g, g.add_variable(data.draw(variable_shapes))))


@CHAIN_SETTINGS
@given(data=st.data())
def test_reads_and_writes_through_view_chain_match_numpy(device, data):
    g = IdGraph(device)
    assert_reads_and_writes_match(device, g, draw_view(data.draw, g, g.add_variable(data.draw(variable_shapes))))


def draw_strided_pieces(draw, variable):
    """The concatenation of a few strided ranges of a 1-D variable. With a small
    variable, a piece often continues, repeats or reverses the one before."""
    pieces = [draw_strided_range(draw, variable, draw(st.integers(0, 4))) for _ in range(draw(st.integers(2, 4)))]
    v = View(poplar.concat([piece.tensor for piece in pieces], 0), np.concatenate([piece.ids for piece in pieces]),
             f"concat([{', '.join(piece.expr for piece in pieces)}])")
    note(f"view: {v.expr}")
    return v


@CHAIN_SETTINGS
@given(data=st.data())
def test_concat_of_strided_pieces_matches_numpy(device, data):
    g = IdGraph(device)
    v = draw_strided_pieces(data.draw, g.add_variable([8]))
    assert_queries_match(g, v)
    assert_reads_and_writes_match(device, g, v)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
def test_transposed_column_panels_match_numpy(device, reverse):
    # A matrix in column panels (pieces of rows side by side, as pd.nn.lstm.create_weights lays
    # out its weights), transposed: consecutive elements lie a fixed number of pieces apart, the
    # pattern the emulator's view composition guesses before it searches; reversed, a step back.
    g = IdGraph(device)
    stored = g.add_variable([3, 5, 16])  # 3 panels of 5 rows x 16 columns
    panels = [View(stored.tensor[p], stored.ids[p], f"v0[{p}]") for p in range(3)]
    matrix = View(poplar.concat([panel.tensor for panel in panels], 1),
                  np.concatenate([panel.ids for panel in panels], 1), "concat(panels, 1)")
    if reverse:
        matrix = View(matrix.tensor.reverse(0), matrix.ids[::-1], f"{matrix.expr}.reverse(0)")
    transposed = View(matrix.tensor.transpose(), matrix.ids.T, f"{matrix.expr}.transpose()")
    assert_queries_match(g, transposed)
    assert_reads_and_writes_match(device, g, transposed)


def assert_compare_like_their_elements(first, second):
    shared = np.intersect1d(first.ids, second.ids).size > 0
    assert first.tensor.intersectsWith(second.tensor) == shared
    assert second.tensor.intersectsWith(first.tensor) == shared
    same_elements = first.ids.shape == second.ids.shape and np.array_equal(first.ids, second.ids)
    assert (first.tensor == second.tensor) == same_elements
    assert (first.tensor != second.tensor) == (not same_elements)


@CHAIN_SETTINGS
@given(data=st.data())
def test_two_views_intersect_and_compare_like_their_elements(device, data):
    g = IdGraph(device)
    start = g.add_variable(data.draw(variable_shapes))
    assert_compare_like_their_elements(draw_view(data.draw, g, start), draw_view(data.draw, g, start))


@CHAIN_SETTINGS
@given(data=st.data())
def test_two_concats_of_strided_pieces_compare_like_their_elements(device, data):
    variable = IdGraph(device).add_variable([4])
    assert_compare_like_their_elements(draw_strided_pieces(data.draw, variable),
                                       draw_strided_pieces(data.draw, variable))


# 2: writes through views that repeat elements, or into constants, are refused.


@pytest.mark.parametrize("make_view", [
    pytest.param(lambda v: v.broadcast(2, 0), id="broadcast"),
    pytest.param(lambda v: v.upsample(2, 1), id="upsample"),
    pytest.param(lambda v: poplar.concat([v, v]), id="concat-with-itself"),
    pytest.param(lambda v: v.expand([0]).broadcast(3, 0), id="expand-broadcast"),
    pytest.param(lambda v: v[0].broadcast(2, 0), id="row-broadcast"),
])
def test_writing_through_aliasing_view_is_a_compilation_error(device, make_view):
    g = IdGraph(device)
    view = make_view(g.add_variable([2, 3]).tensor)
    source = add_source_constant(g, np.zeros(view.numElements(), np.int32))
    with pytest.raises(poplar.graph_program_compilation_error, match="alias"):
        poplar.Engine(g.graph, program.Copy(source, view))


def test_writing_a_constant_is_a_compilation_error(device):
    g = IdGraph(device)
    variable = g.add_variable([3])
    constant = add_source_constant(g, np.arange(3, dtype=np.int32))
    with pytest.raises(poplar.graph_program_compilation_error, match="constant"):
        poplar.Engine(g.graph, program.Copy(variable.tensor, constant))


# 3: copies between overlapping views of one variable read the whole source first.


@pytest.mark.parametrize("source, destination", [
    pytest.param((lambda t: t.slice(0, 4), lambda a: a[0:4]), (lambda t: t.slice(1, 5), lambda a: a[1:5]),
                 id="shift-up"),
    pytest.param((lambda t: t.slice(1, 5), lambda a: a[1:5]), (lambda t: t.slice(0, 4), lambda a: a[0:4]),
                 id="shift-down"),
    pytest.param((lambda t: t.reverse(0), lambda a: a[::-1]), (lambda t: t, lambda a: a), id="reverse-in-place"),
    pytest.param((lambda t: t.subSample(2, 0), lambda a: a[::2]), (lambda t: t.slice(0, 3), lambda a: a[0:3]),
                 id="strided-to-front"),
    pytest.param((lambda t: t.reshape([2, 3]).transpose().flatten(), lambda a: a.reshape(2, 3).T.ravel()),
                 (lambda t: t, lambda a: a), id="transpose-in-place"),
    pytest.param((lambda t: t.slice(0, 2).broadcast(3, 0), lambda a: np.tile(a[0:2], 3)),
                 (lambda t: t, lambda a: a), id="broadcast-prefix-over-all"),
])
def test_overlapping_copy_reads_source_before_writing(device, source, destination):
    (source_view, source_model), (destination_view, destination_model) = source, destination
    g = IdGraph(device)
    variable = g.add_variable([6])
    memory = initial_memory(g)
    g.graph.createHostRead("var", variable.tensor)
    engine = poplar.Engine(g.graph, program.Copy(source_view(variable.tensor), destination_view(variable.tensor)))
    engine.load(device)
    engine.run(0)
    memory[destination_model(variable.ids)] = memory[source_model(variable.ids)].copy()
    np.testing.assert_array_equal(read(engine, "var", [6]), memory)


@CHAIN_SETTINGS
@given(data=st.data())
def test_copy_between_random_views_of_one_variable_reads_source_first(device, data):
    g = IdGraph(device)
    variable = g.add_variable(data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    source = draw_view(data.draw, g, variable)
    count = min(source.ids.size, variable.ids.size)
    destination = draw_strided_range(data.draw, variable, count)
    note(f"destination: {destination.expr}")

    memory = initial_memory(g)
    g.graph.createHostRead("var", variable.tensor)
    engine = poplar.Engine(g.graph, program.Copy(source.tensor.flatten().slice(0, count), destination.tensor))
    engine.load(device)
    engine.run(0)
    memory[destination.ids] = memory[source.ids.ravel()[:count]].copy()
    np.testing.assert_array_equal(read(engine, "var", variable.ids.shape), memory[variable.ids])


# 4: queries on hand-picked views.


def test_contiguous_regions_of_swapped_rows(device):
    g = IdGraph(device)
    v = g.add_variable([2, 3]).tensor
    swapped = poplar.concat([v[1], v[0]])
    assert [tuple(r) for r in swapped.getContiguousRegions()] == [(0, 3), (3, 6)]
    assert [tuple(r.interval) for r in swapped.getVarRegions()] == [(3, 6), (0, 3)]
    assert not swapped.isContiguous()
    assert poplar.concat([v[0], v[1]]).isContiguous()


def test_aliasing_and_intersection_of_strided_views(device):
    # Views of one block are judged by their strides, concats by the blocks' spans; when
    # spans overlap, element by element.
    g = IdGraph(device)
    v = g.add_variable([4, 6]).tensor
    assert not v.transpose().containsAliases()
    assert not v.subSample(2, 1).reverse(0).transpose().containsAliases()
    assert not poplar.concat([v.subSample(2, 1), v.slice(1, 6, 1).subSample(2, 1)], 1).containsAliases()
    assert poplar.concat([v.transpose(), v.transpose()[0].expand([0])]).containsAliases()
    assert poplar.concat([v[0], v[1], v[0].reverse(0)]).containsAliases()
    assert v[0].expand([0]).broadcast(3, 0).containsAliases()
    assert v.reshape([2, 12]).transpose().reshape([4, 6]).containsAliases() is False
    # intersectsWith compares block spans first, then elements where spans meet
    even, odd = v.subSample(2, 1), v.slice(1, 6, 1).subSample(2, 1)
    assert not even.intersectsWith(odd) and even.intersectsWith(v.transpose())
    assert not v[0].intersectsWith(v[1]) and v[1].intersectsWith(v.transpose()[2])


def test_views_of_constants_contain_constants(device):
    g = IdGraph(device)
    v = g.add_variable([3]).tensor
    constant = add_source_constant(g, np.arange(3, dtype=np.int32))
    mixed = poplar.concat([v, constant])
    assert mixed.containsConstant() and constant.reverse(0).containsConstant()
    assert not mixed.slice(0, 3).containsConstant()
    assert mixed.slice(2, 4).containsConstant()
    assert not mixed.isParallelWriteable()
    assert mixed.slice(0, 3).isParallelWriteable()
    assert not v.broadcast(2, 0).isParallelWriteable()


def test_views_intersect_only_when_they_share_elements(device):
    g = IdGraph(device)
    v, w = g.add_variable([6]).tensor, g.add_variable([6]).tensor
    assert v.slice(0, 3).intersectsWith(v.slice(2, 5))
    assert not v.slice(0, 3).intersectsWith(v.slice(3, 6))
    assert not v.intersectsWith(w)
    assert not v.subSample(2, 0).intersectsWith(v.slice(1, 6).subSample(2, 0))
    assert not v.slice(0, 0).intersectsWith(v)


@pytest.mark.parametrize("make_equal", [
    pytest.param(lambda v, w: (v.reverse(0).reverse(0), v), id="reverse-twice"),
    pytest.param(lambda v, w: (v.transpose().transpose(), v), id="transpose-twice"),
    pytest.param(lambda v, w: (poplar.concat([v.slice(0, 1), v.slice(1, 2)]), v), id="concat-of-halves"),
    pytest.param(lambda v, w: (v.flatten().reshape([2, 3]), v), id="flatten-reshape"),
    pytest.param(lambda v, w: (v.broadcast(1, 1), v), id="broadcast-once"),
    pytest.param(lambda v, w: (v[1], v.slice(1, 2, 0).squeeze([0])), id="index-is-slice-squeeze"),
    pytest.param(lambda v, w: (v.dimRoll(1, 0), v.transpose()), id="roll-is-transpose"),
    pytest.param(lambda v, w: (poplar.Tensor(), poplar.Tensor()), id="both-invalid"),
])
def test_views_of_the_same_elements_are_equal(device, make_equal):
    g = IdGraph(device)
    a, b = make_equal(g.add_variable([2, 3]).tensor, g.add_variable([2, 3]).tensor)
    assert a == b and not a != b


@pytest.mark.parametrize("make_different", [
    pytest.param(lambda v, w: (v, w), id="other-variable"),
    pytest.param(lambda v, w: (v.slice(0, 2, 1), v.slice(1, 3, 1)), id="shifted-slice"),
    pytest.param(lambda v, w: (v.reverse(1), v), id="reversed"),
    pytest.param(lambda v, w: (v.flatten().slice(0, 3), v.flatten().subSample(2, 0)), id="other-stride"),
    pytest.param(lambda v, w: (v.flatten(), v), id="other-shape"),
    pytest.param(lambda v, w: (v.reinterpret(poplar.FLOAT), v), id="other-type"),
    pytest.param(lambda v, w: (poplar.Tensor(), v), id="invalid"),
])
def test_views_of_different_elements_are_not_equal(device, make_different):
    g = IdGraph(device)
    a, b = make_different(g.add_variable([2, 3]).tensor, g.add_variable([2, 3]).tensor)
    assert a != b and not a == b


def test_reinterpret_keeps_elements_and_changes_type(device):
    g = IdGraph(device)
    v = g.add_variable([2, 3]).tensor
    as_float = v.reinterpret(poplar.FLOAT)
    assert as_float.elementType() == poplar.FLOAT
    assert as_float.shape() == [2, 3]
    assert as_float.intersectsWith(v)
    assert as_float.reinterpret(poplar.INT) == v


# 5: errors name the problem and never crash.


def error_case(make, error, *fragments, id):
    return pytest.param(make, error, fragments, id=id)


@pytest.mark.parametrize("make, error, fragments", [
    error_case(lambda v, w: v.slice(1, 4, 0), poplar.index_error, "[1, 4)", "size 2", id="slice-past-end"),
    error_case(lambda v, w: v.slice(2, 1, 1), poplar.index_error, "[2, 1)", id="slice-backwards"),
    error_case(lambda v, w: v.slice([0, 0], [2, 4]), poplar.index_error, "[0, 4)", "size 3",
               id="multi-dim-slice-past-end"),
    error_case(lambda v, w: v.slice([0], [1]), poplar.poplar_error, "one entry per dimension",
               id="multi-dim-slice-wrong-rank"),
    error_case(lambda v, w: v[2], poplar.index_error, "index 2", id="getitem-past-end"),
    error_case(lambda v, w: v[0][0][0], poplar.poplar_error, "scalar", id="getitem-of-scalar"),
    error_case(lambda v, w: v.reshape([4, 2]), poplar.poplar_error, "[2,3]", "[4,2]", id="reshape-count"),
    error_case(lambda v, w: v.reshapePartial(1, 2, [2, 2]), poplar.poplar_error, "[2,2]", "[2,3]",
               id="reshape-partial-count"),
    error_case(lambda v, w: v.flatten(1, 1), poplar.poplar_error, "[1, 1)", id="flatten-empty-range"),
    error_case(lambda v, w: v.dimShuffle([0, 0]), poplar.poplar_error, "{0,0}", "not a permutation",
               id="dim-shuffle-repeat"),
    error_case(lambda v, w: v.dimShuffle([1]), poplar.poplar_error, "not a permutation",
               id="dim-shuffle-too-short"),
    error_case(lambda v, w: v.dimShuffle([0, 2]), poplar.poplar_error, "not a permutation",
               id="dim-shuffle-out-of-range"),
    error_case(lambda v, w: v.dimShufflePartial([0, 0], [0, 1]), poplar.poplar_error, "repeated",
               id="dim-shuffle-partial-repeat"),
    error_case(lambda v, w: v.dimRoll(2, 0), poplar.poplar_error, "dimension", id="dim-roll-out-of-range"),
    error_case(lambda v, w: v.squeeze([0]), poplar.poplar_error, "dimension 0", "size 1",
               id="squeeze-non-unit"),
    error_case(lambda v, w: v.expand([3]), poplar.poplar_error, "at most the rank", id="expand-past-rank"),
    error_case(lambda v, w: v.dim(2), poplar.poplar_error, "dimension 2", "out of range", id="dim"),
    error_case(lambda v, w: v.reverse(2), poplar.poplar_error, "dimension 2", "out of range", id="reverse"),
    error_case(lambda v, w: v.broadcast(2, 5), poplar.poplar_error, "dimension 5", "out of range",
               id="broadcast"),
    error_case(lambda v, w: v.upsample(2, 2), poplar.poplar_error, "dimension 2", "out of range",
               id="upsample"),
    error_case(lambda v, w: v.subSample(2, 3), poplar.poplar_error, "dimension 3", "out of range",
               id="sub-sample"),
    error_case(lambda v, w: v.subSample(0, 0), poplar.poplar_error, "stride", id="sub-sample-zero-stride"),
    error_case(lambda v, w: v.slice(0, 1, 2), poplar.poplar_error, "dimension 2", "out of range",
               id="slice-dim"),
    error_case(lambda v, w: v.flatten().transpose(), poplar.poplar_error, "2-dimensional",
               id="transpose-of-vector"),
    error_case(lambda v, w: poplar.concat(v, w, 0), poplar.poplar_error, "[2,4]", "[2,3]", "different shapes",
               id="concat-shape"),
    error_case(lambda v, w: poplar.concat([v, v.reinterpret(poplar.FLOAT)]), poplar.poplar_error, "float", "int",
               "different element types", id="concat-type"),
    error_case(lambda v, w: poplar.concat([v, v.flatten()]), poplar.poplar_error, "[6]", "[2,3]",
               "different shapes", id="concat-rank"),
    error_case(lambda v, w: poplar.concat([], 0), poplar.poplar_error, "no tensors", id="concat-nothing"),
    error_case(lambda v, w: poplar.append(v, w, 0), poplar.poplar_error, "[1,2,4]", "[2,3]", "different shapes",
               id="append-shape"),
    error_case(lambda v, w: v.reinterpret(poplar.HALF), poplar.type_error, "half", "element sizes differ",
               id="reinterpret-size"),
])
def test_invalid_view_operation_raises(device, make, error, fragments):
    g = IdGraph(device)
    v, w = g.add_variable([2, 3]).tensor, g.add_variable([2, 4]).tensor
    with pytest.raises(error) as raised:
        make(v, w)
    for fragment in fragments:
        assert fragment in str(raised.value)


def test_concat_of_views_from_different_graphs_raises(device):
    v = IdGraph(device).add_variable([2]).tensor
    w = IdGraph(device).add_variable([2]).tensor
    with pytest.raises(poplar.poplar_error, match="different graphs"):
        poplar.concat([v, w])


# Element positions are signed 64-bit, so a tensor may have at most 2^63 - 1 bytes.
# Beyond that the counts wrapped: [2^62] floats took 0 bytes of storage, written to
# at element 2^61 (SIGSEGV), and [2^62 + 1, 4] passed as a reshape of 4 elements.
@pytest.mark.parametrize("make, fragments", [
    pytest.param(lambda g, v: g.addVariable(poplar.FLOAT, [2**62], "huge"), ["'huge'", "[4611686018427387904]"],
                 id="variable"),
    pytest.param(lambda g, v: g.addVariable(poplar.FLOAT, [2**63, 4], "huge"), ["'huge'", "[9223372036854775808,4]"],
                 id="variable-count-wraps"),
    pytest.param(lambda g, v: g.addConstant(poplar.FLOAT, [2**62], 1.0, "huge"), ["'huge'"], id="constant"),
    pytest.param(lambda g, v: g.cloneN(v, 2**62), ["[4611686018427387904,2,3]"], id="cloneN"),
    pytest.param(lambda g, v: v.flatten().reshape([2**62 + 1, 6]), ["Tensor::reshape", "[4611686018427387905,6]"],
                 id="reshape-count-wraps"),
    pytest.param(lambda g, v: v.broadcast(2**31, 0).broadcast(2**31, 1).broadcast(2**31, 0),
                 ["Tensor::broadcast", "by 2147483648"], id="broadcast"),
    pytest.param(lambda g, v: v.upsample(2**32 - 1, 0).upsample(2**32 - 1, 0).upsample(2**32 - 1, 0),
                 ["Tensor::upsample", "dimension 0 overflows"], id="upsample-dimension-wraps"),
])
def test_tensor_of_more_than_addressable_bytes_raises(device, make, fragments):
    graph = poplar.Graph(device.getTarget())
    v = graph.addVariable(poplar.FLOAT, [2, 3], "v")
    graph.setTileMapping(v, 0)
    with pytest.raises(poplar.tensor_creation_error, match="too many elements|overflows") as raised:
        make(graph, v)
    for fragment in fragments:
        assert fragment in str(raised.value)


def test_iterating_a_tensor_yields_its_rows(device):
    v = IdGraph(device).add_variable([2, 3]).tensor
    assert [row.shape() for row in v] == [[3], [3]]


def test_concat_of_two_tensors_defaults_to_dimension_0(device):
    g = IdGraph(device)
    v, w = g.add_variable([2]).tensor, g.add_variable([3]).tensor
    assert poplar.concat(v, w) == poplar.concat([v, w], 0)


def test_slices_by_indices_and_interval_checks(device):
    v = IdGraph(device).add_variable([2, 3]).tensor
    assert [s.shape() for s in v.slices([0, 2], 1)] == [[2, 1], [2, 1]]
    assert v.slice(poplar.Interval(1, 3), 1) == v.slice(1, 3, 1)
    with pytest.raises(ValueError, match=r"Interval\(3, 1\): begin must not exceed end"):
        poplar.Interval(3, 1)


INVALID_TENSOR_USES = {
    "shape": lambda t, v, g: t.shape(),
    "rank": lambda t, v, g: t.rank(),
    "numElements": lambda t, v, g: t.numElements(),
    "dim": lambda t, v, g: t.dim(0),
    "elementType": lambda t, v, g: t.elementType(),
    "shapeToString": lambda t, v, g: t.shapeToString(),
    "len": lambda t, v, g: len(t),
    "getitem": lambda t, v, g: t[0],
    "slice": lambda t, v, g: t.slice(0, 1),
    "multi-dim-slice": lambda t, v, g: t.slice([], []),
    "reshape": lambda t, v, g: t.reshape([1]),
    "flatten": lambda t, v, g: t.flatten(),
    "dimShuffle": lambda t, v, g: t.dimShuffle([]),
    "transpose": lambda t, v, g: t.transpose(),
    "expand": lambda t, v, g: t.expand([0]),
    "squeeze": lambda t, v, g: t.squeeze([]),
    "broadcast": lambda t, v, g: t.broadcast(2, 0),
    "upsample": lambda t, v, g: t.upsample(2, 0),
    "subSample": lambda t, v, g: t.subSample(2, 0),
    "reverse": lambda t, v, g: t.reverse(0),
    "reinterpret": lambda t, v, g: t.reinterpret(poplar.FLOAT),
    "isContiguous": lambda t, v, g: t.isContiguous(),
    "containsAliases": lambda t, v, g: t.containsAliases(),
    "containsConstant": lambda t, v, g: t.containsConstant(),
    "isParallelWriteable": lambda t, v, g: t.isParallelWriteable(),
    "getContiguousRegions": lambda t, v, g: t.getContiguousRegions(),
    "getVarRegions": lambda t, v, g: t.getVarRegions(),
    "getVarStr": lambda t, v, g: t.getVarStr(),
    "intersectsWith-invalid": lambda t, v, g: t.intersectsWith(v),
    "intersectsWith-valid": lambda t, v, g: v.intersectsWith(t),
    "concat-first": lambda t, v, g: poplar.concat([t, v]),
    "concat-second": lambda t, v, g: poplar.concat([v, t]),
    "Copy": lambda t, v, g: program.Copy(v, t),
    "setTileMapping": lambda t, v, g: g.setTileMapping(t, 0),
    "createHostRead": lambda t, v, g: g.createHostRead("invalid", t),
}


@pytest.mark.parametrize("use", INVALID_TENSOR_USES.values(), ids=INVALID_TENSOR_USES.keys())
def test_invalid_tensor_raises_poplar_error(device, use):
    g = IdGraph(device)
    v = g.add_variable([2]).tensor
    invalid = poplar.Tensor()
    assert not invalid.valid()
    assert "invalid" in repr(invalid)
    with pytest.raises(poplar.poplar_error, match="not valid"):
        use(invalid, v, g.graph)
