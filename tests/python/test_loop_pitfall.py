"""The loop pitfall: a tensor computed in a loop body from values the loop does not change,
never used in the body but read after the loop, warns once (pd.LoopCarryWarning) with the
body's source line and the fix; correct loops do not warn. Values against numpy."""
import warnings

import numpy as np
import pytest

import popdsl as pd


@pytest.fixture
def graph(device):
    return pd.Graph(device)


def run(graph, main, device, *tensors):
    with pd.Session(graph, main, device=device) as s:
        s.run()
        return [s.read(t) for t in tensors]


def loop_warnings(build):
    """The LoopCarryWarnings raised while `build()` runs, and what it returned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build()
    return [w for w in caught if issubclass(w.category, pd.LoopCarryWarning)], result


def test_a_name_rebound_in_a_repeat_and_read_after_it_warns_once_with_the_line_and_the_fix(graph, device):
    start = graph.variable(pd.float32, (3,), name="start", init=[1.0, 2.0, 3.0])

    def build():
        with pd.Sequence() as main:
            acc = start
            with pd.Repeat(4):
                acc = acc + 1  # the pitfall
            doubled = acc * 2
            tripled = acc * 3  # a second read: no second warning
        return main, acc, doubled, tripled

    caught, (main, acc, doubled, tripled) = loop_warnings(build)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "test_loop_pitfall.py" in message and "acc = acc + 1  # the pitfall" in message
    assert "pd.Repeat body" in message and "`acc += 1`" in message and "acc.assign(acc + 1)" in message
    assert caught[0].filename == __file__ and "doubled = acc * 2" in open(__file__).readlines()[caught[0].lineno - 1]
    # what the warning is about: every iteration computed start + 1, not start + 4
    got_acc, got_doubled = run(graph, main, device, acc, doubled)
    np.testing.assert_array_equal(got_acc, np.array([1.0, 2.0, 3.0]) + 1)
    np.testing.assert_array_equal(got_doubled, (np.array([1.0, 2.0, 3.0]) + 1) * 2)


def test_a_while_body_warns_when_session_read_reads_the_new_tensor(graph, device):
    x = graph.variable(pd.float32, (2,), name="x", init=[0.5, 1.5])
    n = graph.variable(pd.int32, (1,), name="n", init=3)

    def build():
        with pd.Sequence() as main:
            y = x
            with pd.While(lambda: n > 0):
                y = pd.exp(y)
                n.assign(n - 1)
        return main, y

    caught, (main, y) = loop_warnings(build)
    assert caught == []  # nothing has read y yet
    with pd.Session(graph, main, device=device) as s:
        s.run()
        with pytest.warns(pd.LoopCarryWarning, match=r"y = pd\.exp\(y\): this line in the pd\.While body at "
                                                     r"test_loop_pitfall\.py:\d+"):
            got = s.read(y)
    np.testing.assert_allclose(got, np.exp([0.5, 1.5]), rtol=1e-6)


def correct_in_place_update(g, x, i):
    acc = g.variable(pd.float32, (3,), name="acc", init=0.0)
    with pd.Repeat(4):
        acc += x[0]
    return acc, np.arange(3.0) * 4


def correct_assign(g, x, i):
    acc = g.variable(pd.float32, (3,), name="acc", init=1.0)
    with pd.Repeat(3):
        acc.assign(acc * 2)
    return acc * 1, np.full(3, 8.0)


def correct_dynamic_update(g, x, i):
    with pd.Repeat(2):
        row = x.at[i].get()
        x.at[i].set(row * 10)
        i += 1
    return x, np.arange(6.0).reshape(2, 3) * 10


def correct_values_used_only_in_the_body(g, x, i):
    total = g.variable(pd.float32, (3,), name="total", init=0.0)
    with pd.Repeat(3):
        h = x[1] * 2  # a new tensor each iteration, read by the next line
        total += h
    return total, np.array([3.0, 4.0, 5.0]) * 6


def correct_read_of_a_loop_carried_variable(g, x, i):
    with pd.Repeat(5):
        i += 1
    return i * 1, np.array([5])


def correct_last_row_of_a_moving_index(g, x, i):
    with pd.Repeat(2):
        row = x.at[i].get()  # the index changes every iteration: the last row is meant
        i += 1
    return row, np.array([3.0, 4.0, 5.0])


@pytest.mark.parametrize("idiom", [correct_in_place_update, correct_assign, correct_dynamic_update,
                                   correct_values_used_only_in_the_body, correct_read_of_a_loop_carried_variable,
                                   correct_last_row_of_a_moving_index], ids=lambda f: f.__name__)
def test_correct_loops_do_not_warn(graph, device, idiom):
    x = graph.variable(pd.float32, (2, 3), name="x", init=np.arange(6.0).reshape(2, 3))
    i = graph.variable(pd.uint32, (1,), name="i", init=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.LoopCarryWarning)
        with pd.Sequence() as main:
            result, expected = idiom(graph, x, i)
            after = result * 1  # read after the loop
        (got,) = run(graph, main, device, after)
    np.testing.assert_array_equal(got, expected)


def test_random_draws_in_a_loop_do_not_warn(graph, device):
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.LoopCarryWarning)
        with pd.Sequence() as main:
            with pd.Repeat(3):
                noise = pd.random.uniform(graph, (4,), seed=graph.variable(pd.uint32, (2,), name="seed", init=7))
            scaled = noise * 2
        (got,) = run(graph, main, device, scaled)
    assert ((got >= 0) & (got <= 2)).all()


def test_reading_a_view_of_the_new_tensor_after_the_loop_warns(graph):
    start = graph.variable(pd.float32, (2, 3), name="start")

    def build():
        with pd.Sequence():
            total = start
            with pd.Repeat(3):
                total = total * 2
            total[0].reshape(3, 1) + 1  # an op reading a view of it

    caught, _ = loop_warnings(build)
    assert [str(w.message).split(": this line")[0] for w in caught] == [
        f"test_loop_pitfall.py:{line_of('total = total * 2')}: total = total * 2"]


def line_of(text: str, end: bool = False) -> int:
    """The line of this file that is `text` (or ends with it)."""
    [number] = [i for i, line in enumerate(open(__file__), 1) if (line.rstrip().endswith(text) if end
                                                                   else line.strip() == text)]
    return number


def rebound_to_a_counter(g, acc, x, i, k):
    with pd.Repeat(3):  # LOOP OF A COUNTER
        acc = acc + k  # REBOUND, k CHANGES
        k += 1
    return acc, np.full(3, 1.0 + 2)  # the last iteration's start + k, not start + 0 + 1 + 2


def rebound_to_a_row_at_a_moving_index(g, acc, x, i, k):
    with pd.Repeat(2):  # LOOP OF A MOVING INDEX
        acc = acc + x.at[i].get()  # REBOUND, THE ROW CHANGES
        i += 1
    return acc, 1.0 + np.array([3.0, 4.0, 5.0])  # start + the last row, not start + both rows


@pytest.mark.parametrize("pitfall, body, loop", [
    (rebound_to_a_counter, "# REBOUND, k CHANGES", "# LOOP OF A COUNTER"),
    (rebound_to_a_row_at_a_moving_index, "# REBOUND, THE ROW CHANGES", "# LOOP OF A MOVING INDEX")],
    ids=["counter", "row_at_a_moving_index"])
def test_a_name_rebound_to_a_value_computed_from_a_changing_one_warns_once(graph, device, pitfall, body, loop):
    x = graph.variable(pd.float32, (2, 3), name="x", init=np.arange(6.0).reshape(2, 3))
    i = graph.variable(pd.uint32, (1,), name="i", init=0)
    k = graph.variable(pd.float32, (1,), name="k", init=0.0)
    start = graph.variable(pd.float32, (3,), name="start", init=1.0)

    def build():
        with pd.Sequence() as main:
            acc, expected = pitfall(graph, start, x, i, k)
            after = acc * 1  # READ AFTER
            acc * 2  # a second read: no second warning
        return main, acc, after, expected

    caught, (main, acc, after, expected) = loop_warnings(build)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"test_loop_pitfall.py:{line_of(body, end=True)}: acc = acc + ")
    assert f"pd.Repeat body at test_loop_pitfall.py:{line_of(loop, end=True)}" in message
    assert "rebinds `acc`" in message and "`acc += ...`" in message and "`acc.assign(<the new value>)`" in message
    assert caught[0].filename == __file__ and caught[0].lineno == line_of("after = acc * 1  # READ AFTER")
    # what the warning is about: each iteration started again from `start`
    (got,) = run(graph, main, device, after)
    np.testing.assert_array_equal(got, expected)


def changing_in_place_update(g, acc, out, i, k):
    with pd.Repeat(3):
        acc += k
        k += 1
    return acc, 1.0 + (0 + 1 + 2) + np.zeros(3)


def changing_assign(g, acc, out, i, k):
    with pd.Repeat(3):
        acc.assign(acc + k)
        k += 1
    return acc, 1.0 + (0 + 1 + 2) + np.zeros(3)


def changing_temporary_used_in_the_body(g, acc, out, i, k):
    total = g.variable(pd.float32, (3,), name="total", init=0.0)
    with pd.Repeat(3):
        acc = acc + k  # a new tensor each iteration, read by the next line
        total += acc
        k += 1
    return total, (1.0 + 0) + (1.0 + 1) + (1.0 + 2) + np.zeros(3)


def changing_value_sent_to_the_host(g, acc, out, i, k):
    with pd.Repeat(3):
        acc = acc + k  # each iteration's start + k goes to the host
        out.write(acc)
        k += 1
    return acc, np.full(3, 1.0 + 2)


def changing_new_name_for_the_last_value(g, acc, out, i, k):
    with pd.Repeat(3):
        shifted = acc + k  # a new name: the last iteration's value is meant
        k += 1
    return shifted, np.full(3, 1.0 + 2)


@pytest.mark.parametrize("idiom", [changing_in_place_update, changing_assign, changing_temporary_used_in_the_body,
                                   changing_value_sent_to_the_host, changing_new_name_for_the_last_value],
                         ids=lambda f: f.__name__)
def test_correct_loops_with_changing_values_do_not_warn(graph, device, idiom):
    start = graph.variable(pd.float32, (3,), name="start", init=1.0)
    i = graph.variable(pd.uint32, (1,), name="i", init=0)
    k = graph.variable(pd.float32, (1,), name="k", init=0.0)
    out = graph.device_to_host(pd.float32, (3,), name="out")
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.LoopCarryWarning)
        with pd.Sequence() as main:
            result, expected = idiom(graph, start, out, i, k)
            after = result * 1  # read after the loop
        with pd.Session(graph, main, device=device) as s:
            sent = s.run()[out]
            got = s.read(after)
    np.testing.assert_array_equal(got, expected)
    if idiom is changing_value_sent_to_the_host:
        np.testing.assert_array_equal(sent, 1.0 + np.array([[0.0] * 3, [1.0] * 3, [2.0] * 3]))
