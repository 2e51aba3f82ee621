"""A job's life: what each queue allows (queues.py), every enqueue (enqueue.py), the index and snapshot jobs
(index.py, snapshot.py), and watching a job from a page (watch.py; settle.py for a rollout's)."""
