"""What layers report before they are built (tests/cpp/layer_costs.cpp): the recurrent
layers' flop counts and the products the vanilla RNN and fully connected layers plan,
against the products written out here (an [m][k] x [k][n] product is 2 m k n flops)."""
import pytest

from cpp_build import run_labelled_program


@pytest.fixture(scope="module")
def layer_costs(tmp_path_factory):
    """The program's lines, built and run once for the module."""
    return run_labelled_program(tmp_path_factory.mktemp("layer_costs"), "layer_costs")[0]


def product_flops(m, k, n):
    return 2 * m * k * n


def test_recurrent_flops_count_each_pass_products(layer_costs):
    out = layer_costs
    # Vanilla RNN, 5 steps of batch 3: x Wff [7][4] and y Wfb [4][4] each step.
    rows, i, o = 5 * 3, 7, 4
    assert out["rnn fwd"] == f"{product_flops(rows, i, o) + product_flops(rows, o, o)} {product_flops(rows, o, o)}"
    assert out["rnn bwd"] == f"{product_flops(rows, o, o) + product_flops(rows, o, i)} {product_flops(rows, o, o)}"
    assert out["rnn wu"] == str(product_flops(i, rows, o) + product_flops(o, rows, o))
    # LSTM (four gates) and GRU (three), 6 steps of batch 2, input 5, output 3: the gates'
    # pre-activations are x W [5][gates*3] + h U [3][gates*3].
    rows, i, o = 6 * 2, 5, 3
    lstm_full = product_flops(rows, i, 4 * o) + product_flops(rows, o, 4 * o)
    assert out["lstm"] == f"{lstm_full} {lstm_full} {lstm_full}"
    assert out["lstm without input products"] == f"{product_flops(rows, o, 4 * o)} {product_flops(rows, o, 4 * o)}"
    gru_full = product_flops(rows, i, 3 * o) + product_flops(rows, o, 3 * o)
    assert out["gru"] == f"{gru_full} {gru_full} {gru_full}"
    assert out["gru without input gradients"] == str(product_flops(rows, o, 3 * o))
    assert lstm_full == 2304 and gru_full == 1728  # by hand: 2*12*12*8 and 2*12*9*8


def test_planned_products_are_those_the_layers_run(layer_costs):
    out = layer_costs
    # The RNN's forward products (all steps' inputs at once, then one step's feedback), then
    # backward (input gradient) and the two weight updates; the options carry partialsType.
    assert out["rnn training"] == "; ".join(f"{a}*{b} half half partialsType=half" for a, b in [
        ("15x7", "7x4"), ("3x4", "4x4"), ("3x4", "4x7"), ("7x3", "3x4"), ("4x3", "3x4")])
    assert out["rnn inference"] == "3x4*4x4 float float partialsType=float"
    assert out["bad partials"] == "rnn::getMatMulPrePlanParameters: partialsType int must be FLOAT or HALF"
    # The LSTM's per-gate products (batch 2, input 5, output 3), with no options.
    assert out["lstm training"] == "; ".join(f"{a}*{b} float float" for a, b in [
        ("2x5", "5x3"), ("2x3", "3x3"), ("2x3", "3x5"), ("5x2", "2x3"), ("3x2", "2x3")])
    assert out["lstm inference"] == "2x5*5x3 float float; 2x3*3x3 float float"
    assert out["bad lstm option"] == "lstm::getMatMulPrePlanParameters: inferenceOnly must be true or false, not 'yes'"
    # The fully connected layer keeps the caller's options, setting only fullyConnectedPass.
    assert out["fc training"] == ("2x8x16*2x16x10 half half fullyConnectedPass=TRAINING_FWD partialsType=half; "
                                  "2x8x10*2x10x16 half half fullyConnectedPass=TRAINING_BWD partialsType=half; "
                                  "2x16x8*2x8x10 half half fullyConnectedPass=TRAINING_WU partialsType=half")
    assert out["fc inference"] == "2x8x16*2x16x10 float float fullyConnectedPass=INFERENCE_FWD"
