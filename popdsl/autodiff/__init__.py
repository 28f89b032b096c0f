"""Automatic differentiation of the ops recorded in a block: pd.grad.

The core records the ops (popdsl/recording.py, below every op); this package reads the
records and holds all gradient policy. registry.py is the table of gradient rules; rules.py
and expressions.py hold the rules of the layer's ops (and its no_gradient declarations),
nn_rules.py those of conv and pool, distributed_rules.py those of pd.ipu_copy and
pd.all_reduce, control_rules.py those of pd.Repeat, pd.If and pd.Switch, custom.py
@pd.custom_grad's; backprop.py is the reverse pass over a list of records and grad.py pd.grad
itself; pipelining.py builds a model's forwards and backwards over IPUs in a pipeline
schedule (pd.pipeline).
"""
