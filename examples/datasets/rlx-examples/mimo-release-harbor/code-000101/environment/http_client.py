"""A tiny HTTP client's options (the code the converted task's agent fixes)."""


def make_client(base_url: str, retries: int = 3) -> dict:
    if retries < 1:
        raise ValueError("retries must be at least 1")
    return {"base_url": base_url, "retries": retries}
