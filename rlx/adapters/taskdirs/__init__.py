"""Repositories of task folders without task.toml (instruction file + tests/ or a grader)."""
