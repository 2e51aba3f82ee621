def rot13(text: str) -> str:
    """Rotate each ASCII letter by 13 places; keep everything else."""
    raise NotImplementedError
