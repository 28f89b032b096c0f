"""
namespace popops::padding
"""
from __future__ import annotations
import typing
__all__: list[str] = ['MappingMethod', 'Type']
class Type:
    """
    Members:
    
      EDGE
    
      REFLECT
    """
    EDGE: typing.ClassVar[Type]
    REFLECT: typing.ClassVar[Type]
    __members__: typing.ClassVar[dict[str, Type]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class MappingMethod:
    """
    Members:
    
      NONE
    
      ZERO
    
      EDGE
    """
    EDGE: typing.ClassVar[MappingMethod]
    NONE: typing.ClassVar[MappingMethod]
    ZERO: typing.ClassVar[MappingMethod]
    __members__: typing.ClassVar[dict[str, MappingMethod]]
    def __eq__(self, other: object) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    def __ne__(self, other: object) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
