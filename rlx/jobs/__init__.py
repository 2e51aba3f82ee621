"""RQ job functions: plain module-level functions taking ids, safe to run twice."""
