"""The app for playground tests under gunicorn (gevent), with the waits shortened so a hang or an idle visitor
shows within a second or two: RLX_TEST_STEP_TIMEOUT_S, RLX_TEST_IDLE_S, RLX_TEST_EPISODE_IDLE_S, RLX_TEST_TURN_S
(how long a player keeps a server once someone waits) and RLX_TEST_MIN_RECHECK_S (how soon a failed check may be
made again)."""

import os

from rlx import create_app
from rlx.live import episode, shared_episode, slots, space_checks

episode.STEP_TIMEOUT_S = float(os.environ.get("RLX_TEST_STEP_TIMEOUT_S") or episode.STEP_TIMEOUT_S)
slots.IDLE_S = int(os.environ.get("RLX_TEST_IDLE_S") or slots.IDLE_S)
shared_episode.EPISODE_IDLE_S = float(os.environ.get("RLX_TEST_EPISODE_IDLE_S") or shared_episode.EPISODE_IDLE_S)
shared_episode.TURN_S = float(os.environ.get("RLX_TEST_TURN_S") or shared_episode.TURN_S)
space_checks.MIN_RECHECK_S = float(os.environ.get("RLX_TEST_MIN_RECHECK_S") or space_checks.MIN_RECHECK_S)
app = create_app()
