"""Automatic differentiation of the ops recorded in a block: pd.grad.

tape.py records the ops, registry.py holds the table of gradient rules; rules.py and
expressions.py hold the rules of the layer's ops, nn_rules.py those of conv and pool,
control_rules.py those of pd.Repeat, pd.If and pd.Switch, custom.py @pd.custom_grad's; backprop.py
is the reverse pass over a list of records and grad.py pd.grad itself.
"""
