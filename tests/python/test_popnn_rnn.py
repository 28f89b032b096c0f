"""popnn/Rnn.hpp's RnnParams and tensor helpers, through tests/cpp/rnn_utilities.cpp
built against the prefix; expected values worked out by hand in the comments."""
import pytest

from cpp_build import run_labelled_program


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return run_labelled_program(tmp_path_factory.mktemp("rnn"), "rnn_utilities")[0]


def test_params_spread_a_step_over_the_tiles(out):
    # Input 24 features: grains of gcd(16, 24) = 8, 2 batches x 3 = 6 grains. Output 8: 2 grains.
    # 4 tiles: 2 input grains a tile (3 tiles, 2*8*4 = 64 bytes), 1 output grain (32 bytes);
    # a shard needs 3 tiles, so one shard.
    assert out["tiles 4"] == "shards 1, bytes 64 32"
    # 16 tiles: 1 grain a tile (32 bytes each), 6 tiles a shard: 2 shards of 2 and 1 steps.
    assert out["tiles 16"] == "shards 2, bytes 32 32"


def test_tensor_shapes_and_layout(out):
    # state [multiple][batch][output or input size], then [steps][batch][size] tensors;
    # the second output holds two outputs along time; the recurrent one has size 5.
    assert out["shapes"] == "2x2x8 1x2x24 3x2x24 3x2x8 6x2x8 3x2x5"
    # 144 elements in grains of 8 over 4 tiles: 18 grains, 5 a tile.
    assert out["input tile 0"] == "[0, 40)"


def test_variable_time_steps(out):
    # fixed; per batch ([2]); one for all ([1]); timeSteps mirrors maxTimeSteps.
    assert out["variable"] == "00 11 10 5"
    assert out["bad sizes"] == "RnnParams: layerSizes must hold {input size, output size}, not 3 sizes"


def test_shift_rnn_tensor_delays_by_one_step(out):
    # Step 0 is tSingle (-1, -2), step n is tBase's step n - 1.
    assert out["shift"] == "3x1x2, -1 -2 1 2 3 4"
    # Two outputs along time: a step is 2 rows.
    assert out["shift 2"] == "6x1x2, -1 -2 -3 -4 1 2 3 4 5 6 7 8"
