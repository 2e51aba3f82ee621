"""Adapters: every environment format is read through one contract (rlx/adapters/contract.py).

Built-in adapters register here through the same door a new format uses: `register(MyAdapter())`.
"""

from rlx.adapters.contract import (
    Adapter, Block, FileView, Index, RunField, RunOption, Section, TaskRow, TaskView, Withheld,
)
from rlx.adapters.env import Env
from rlx.adapters.public import public
from rlx.adapters.registry import all_adapters, choose, get, pick, register, unregister

__all__ = [
    "Adapter", "Block", "Env", "FileView", "Index", "RunField", "RunOption", "Section", "TaskRow", "TaskView",
    "Withheld", "all_adapters", "choose", "get", "pick", "public", "register", "unregister",
]
