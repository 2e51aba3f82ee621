"""The Harbor adapter: task folders with task.toml, instruction.md, environment/, tests/ and solution/."""
