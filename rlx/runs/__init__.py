"""Rollouts: an agent on a task in a sandbox, driven by Harbor's Trial in one RQ job per run.

    record.py     the run record in the store (runs/<id>/run.json), written atomically
    runs_db.py    the SQLite index of runs (runs/index.sqlite), updated by the job; pages query it
    events.py     live events in a Redis stream per run, archived to the store at the end
    launch.py     start (record + job) and stop runs; end one from outside its job
    runner.py     the job: copy the task, drive the Trial, catch every failure into the record
    batch_record.py  a batch's record; batch.py starts its runs, at most its cap at once, as runs end
    health.py     an environment's health check and its verdicts; health_check.py starts one
    local_env.py  `local`, a Harbor environment on a bubblewrap sandbox, selected by import path
    hf_sandbox_env.py  `hf`, Harbor's HF Sandbox environment on the visitor's account, selected by import path
    sandboxes.py  which sandbox a run uses, from the web and the job (who may use HF Sandboxes, the token's handoff)
    bwrap.py      the sandbox itself: namespaces, limits, commands, teardown
    replay.py     a task's Dockerfile replayed into the sandbox
    taskfiles.py  a task's files copied from its source for Harbor to read
    judges.py     model-graded tasks: the judge pool a visitor picks from, whose key calls it
    judge_relay.py, judge_run.py  the run's judge relay (a unix socket linked into the sandbox) and its phases
"""
