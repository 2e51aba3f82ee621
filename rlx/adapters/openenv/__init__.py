"""Spaces (OpenEnv servers and other apps) through the environment contract."""

from rlx.adapters.openenv.adapter import SpaceAdapter

__all__ = ["SpaceAdapter"]
