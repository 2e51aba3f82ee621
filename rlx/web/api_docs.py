"""/api/openapi.json: the JSON API's description (rlx/web/openapi.yaml), read once."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml
from flask import Blueprint, jsonify

bp = Blueprint("api_docs", __name__)
SPEC_PATH = Path(__file__).with_name("openapi.yaml")


@functools.cache
def openapi_spec() -> dict:
    return yaml.safe_load(SPEC_PATH.read_text())


@bp.get("/api/openapi.json")
def openapi():
    response = jsonify(openapi_spec())
    response.headers["Cache-Control"] = "public, max-age=300"
    return response
