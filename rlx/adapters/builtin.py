"""The built-in formats, registered through the same `register` a new format calls.

Run once, when the rlx.adapters package is first imported (its __init__ imports this last), so the registry is
full before anyone asks it and the registry itself never imports an adapter.
"""

from rlx.adapters.harbor.adapter import HarborAdapter
from rlx.adapters.mimo.adapter import MimoAdapter
from rlx.adapters.registry import register
from rlx.adapters.rows.adapter import RowsAdapter
from rlx.adapters.taskdirs.adapter import TaskFoldersAdapter

for _adapter in (HarborAdapter(), MimoAdapter(), RowsAdapter(), TaskFoldersAdapter()):
    register(_adapter)
