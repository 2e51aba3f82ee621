"""Row processors: each turns one row of a dataset into a task, for one row format.

How the rows adapter uses them: it reads the column names and a few sample rows, asks every registered
processor to `claim` them (a score from 0 to 1), and keeps the surest (`choose_processor`). Each row then goes
through `render_row`, which withholds answers first and turns whatever the processor raises into a clear
message in place of that task.

Adding a processor (a new row format), in three steps:

1. Write a module here with a subclass of `Processor`:

       class MyFormat(Processor):
           key = "my-format"             # stored with the index: pick it once and keep it
           label = "My format"           # shown on pages ("does not read as a My format task")
           kind = "rows"                 # the catalog Kind it counts under (rlx/catalog/kinds.py)
           agent_fields = ("instruction",)  # what the agent gets
           label_fields = ("level",)        # plain labels; every other field is withheld as the grader's
           answer_keys = ("secret_col",)    # a second net: answer names the shared rule does not know

           def claim(self, columns, sample):       # columns: names; sample: a few rows, answers removed
               return 0.9 if "my_marker" in columns else 0.0

           def to_task(self, row, ref, withheld):  # row: answers removed; ref: RowRef(split, index, config)
               text = row["instruction"]
               return RowTask(title=title_from(text, f"Row {ref.index}"), brief=brief_from(text),
                              facets={"level": row.get("level")},
                              sections=[Section("task", "What the agent gets", [blocks.prompt(text)])])

   Sections hold blocks from rlx/adapters/blocks.py (the only thing pages and MCP draw). Raise `RowProblem`
   with a sentence when a row is not in your format. Claims above 0.9 mean "only my format has this marker";
   the generic processor claims 0.1, so anything above that beats it.
2. Register it: add an instance to `builtin.PROCESSORS`, or call `register(MyFormat())` from your own module.
3. Test it with a row of your format through `render_row`, and a row that breaks it.

Withholding (fields.py): a row keeps only the processor's `agent_fields` and `label_fields`; every other field
is the grader's side, withheld and named with why. Then the answer-name rule (rlx/adapters/withhold/keys.py,
plus `answer_keys`) walks what is left at any depth, inside nested objects, lists and cells holding JSON or
Python-literal text (the one walk, rlx/adapters/withhold/walk.py), and each withheld value is masked wherever
else it stands among the labels. Override `Processor.withhold` only to keep a field whole (a packed archive)
and withhold inside it yourself.
"""

from rlx.adapters.rows.processors.answers import parse_nested_text, withhold_answers
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowRef, RowTask, render_row
from rlx.adapters.rows.processors.common import brief_from, title_from
from rlx.adapters.rows.processors.registry import (
    all_processors, choose_processor, get_processor, register, unregister,
)

__all__ = [
    "Processor", "RowProblem", "RowRef", "RowTask", "all_processors", "brief_from", "choose_processor",
    "get_processor", "parse_nested_text", "register", "render_row", "title_from", "unregister", "withhold_answers",
]
