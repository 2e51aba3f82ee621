# Shared by every step's test.sh (the task's tests/ is merged into /tests for each step).

# write_reward VALUE: record the step's reward where Harbor reads it.
write_reward() {
  mkdir -p /logs/verifier
  echo "$1" > /logs/verifier/reward.txt
}

# reward_from CMD...: reward 1 if the command succeeds, else 0.
reward_from() {
  if "$@"; then write_reward 1; else write_reward 0; fi
}
