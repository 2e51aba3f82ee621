"""Health for operators: /healthz, /readyz and /metrics."""
