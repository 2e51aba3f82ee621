"""The MiMo release adapter (rlx/adapters/mimo/adapter.py): Xiaomi's MiMo RL release, known by its layout."""
