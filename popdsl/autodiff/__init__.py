"""Automatic differentiation of the ops recorded in a block: pd.grad.

tape.py records the ops, registry.py holds the table of gradient rules, rules.py and
expressions.py the rules of the layer's ops, grad.py the reverse pass.
"""
