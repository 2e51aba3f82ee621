"""Adapters: every environment format is read through one contract (rlx/adapters/contract.py).

Built-in adapters register through the same door a new format uses, `register(MyAdapter())`, when this package is
imported (rlx/adapters/builtin.py, last below).
"""

from rlx.adapters.contract import (
    Adapter, Block, FileView, Index, RunField, RunOption, Section, TaskRow, TaskView, Withheld,
)
from rlx.adapters.env import Env
from rlx.adapters.public import public
from rlx.adapters.registry import all_adapters, choose, get, pick, register, unregister
from rlx.adapters import builtin  # noqa: F401,E402  (last: the built-ins register once the names above exist)

__all__ = [
    "Adapter", "Block", "Env", "FileView", "Index", "RunField", "RunOption", "Section", "TaskRow", "TaskView",
    "Withheld", "all_adapters", "choose", "get", "pick", "public", "register", "unregister",
]
