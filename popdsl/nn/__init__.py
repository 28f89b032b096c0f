"""Graph builders written on the Pythonic layer: LSTM, causal attention and its mask blocks."""
from popdsl.nn import lstm
from popdsl.nn.attention import (chunk_counts, flash_attention_qkv_packed, flash_attention_qkv_packed_grad,
                                 flash_attention_qkv_packed_with_stash, scaled_dot_product_attention,
                                 vanilla_attention, vanilla_attention_grad)
from popdsl.nn.masks import MASK_VALUE, MaskBlocks, causal_mask_blocks, triu_offset_sequence

__all__ = ["MASK_VALUE", "MaskBlocks", "causal_mask_blocks", "chunk_counts", "flash_attention_qkv_packed",
           "flash_attention_qkv_packed_grad", "flash_attention_qkv_packed_with_stash", "lstm",
           "scaled_dot_product_attention", "triu_offset_sequence", "vanilla_attention", "vanilla_attention_grad"]
