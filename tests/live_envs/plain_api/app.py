"""A FastAPI app that is not OpenEnv (like a NeMo Gym resource server or any small API on a Space):
uvicorn app:app, run from this folder."""

from fastapi import FastAPI, Request, Response
from pydantic import BaseModel

app = FastAPI(title="Plain API")


class Submission(BaseModel):
    task_id: str
    attempt: str
    tries: int = 1


@app.get("/items/{item_id}", summary="Read one item")
def read_item(item_id: str, verbose: bool = False):
    return {"item_id": item_id, "verbose": verbose, "reference_answer": f"hidden-{item_id}"}


@app.post("/grade", summary="Grade an attempt")
def grade(submission: Submission):
    return {"task_id": submission.task_id, "score": 1.0 if submission.attempt == "42" else 0.0,
            "expected_output": "42", "tries": submission.tries}


@app.get("/login", summary="Start a session")
def login(response: Response, name: str = "guest"):
    response.set_cookie("who", name)
    return {"hello": name}


@app.get("/whoami", summary="Who this session is")
def whoami(request: Request):
    return {"who": request.cookies.get("who", "nobody")}


@app.get("/health")
def health():
    return {"status": "ok"}
