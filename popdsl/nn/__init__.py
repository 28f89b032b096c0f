"""Graph builders written on the Pythonic layer: LSTM, causal attention and its mask blocks,
convolutions and pooling."""
from popdsl.nn import init, lstm
from popdsl.nn.attention import (chunk_counts, flash_attention_qkv_packed, flash_attention_qkv_packed_grad,
                                 flash_attention_qkv_packed_with_stash, scaled_dot_product_attention,
                                 vanilla_attention, vanilla_attention_grad)
from popdsl.nn.conv import conv, conv_params
from popdsl.nn.kv_cache import KVCache
from popdsl.nn.layers import embedding, linear
from popdsl.nn.losses import cross_entropy, log_softmax, mse, one_hot
from popdsl.nn.normalisation import group_norm, layer_norm
from popdsl.nn.masks import MASK_VALUE, MaskBlocks, causal_mask_blocks, triu_offset_sequence
from popdsl.nn.pool import pool, pool_params

__all__ = ["KVCache", "MASK_VALUE", "MaskBlocks", "causal_mask_blocks", "chunk_counts", "conv", "conv_params", "cross_entropy",
           "embedding", "flash_attention_qkv_packed", "flash_attention_qkv_packed_grad",
           "flash_attention_qkv_packed_with_stash", "group_norm", "init", "layer_norm", "linear", "log_softmax", "lstm",
           "mse", "one_hot", "pool", "pool_params",
           "scaled_dot_product_attention", "triu_offset_sequence", "vanilla_attention", "vanilla_attention_grad"]

from popdsl.autodiff import nn_rules  # noqa: E402,F401  (the gradient rules of conv and pool)
