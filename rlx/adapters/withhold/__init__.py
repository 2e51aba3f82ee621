"""Answers stay out: what every format uses to withhold answers from pages, JSON, MCP, search and runs.

- `is_answer_key` / `strip_answers`: answer-named keys at any depth (the rule is in keys.py).
- `withheld_file_reason`: solution/, and answer or data files beside the grader (files.py).
- `mask_grader_script`: answers written into grader scripts, masked in place (scripts.py, pyliterals.py).
- `mask_toml_answers`: answer-keyed values in raw task.toml text, masked in place (tomltext.py).
- `mask_yaml_answers`: the same in raw YAML text (a Terminal-Bench task.yaml, a compose file) (yamltext.py).
- `withhold_task_texts`: all of one task's texts at once, so a value masked in one file is masked in every other
  (task.py, values.py); `mask_values_in` does the same to metadata.
Each returns what it withheld as `Withheld(where, why)`, so a page can say what it left out.
"""

from rlx.adapters.withhold.file_rules import withheld_file_reason
from rlx.adapters.withhold.keys import is_answer_key, key_words, strip_answers
from rlx.adapters.withhold.masking import MASK, Withheld
from rlx.adapters.withhold.scripts import mask_grader_script
from rlx.adapters.withhold.task import mask_task_text, withhold_task_texts
from rlx.adapters.withhold.tomltext import mask_toml_answers
from rlx.adapters.withhold.yamltext import mask_yaml_answers
from rlx.adapters.withhold.values import mask_values_in

__all__ = [
    "MASK",
    "Withheld",
    "is_answer_key",
    "key_words",
    "mask_grader_script",
    "mask_task_text",
    "mask_toml_answers",
    "mask_yaml_answers",
    "mask_values_in",
    "strip_answers",
    "withheld_file_reason",
    "withhold_task_texts",
]
