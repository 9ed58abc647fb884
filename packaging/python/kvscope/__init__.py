"""kvscope: how much KV cache will this model need, and will it fit?

Each function takes a ``kvscope.request/1`` as a dict (its keys are the CLI's, ``kvscope --help``
lists each beside its flag; ``request_schema(command)`` is its JSON Schema) and returns the report
the CLI prints with ``--json``, as a dict. Bad input raises :class:`KvscopeError` naming the key.

>>> import kvscope
>>> report = kvscope.plan({"model": "llama-3.1-8b", "gpu_memory_bytes": 24_000_000_000,
...                        "max_model_len": 131072})
>>> report["starts"], report["max_model_len_that_fits"]
(False, 28256)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _core

__all__ = ["KvscopeError", "estimate", "plan", "sweep", "solve", "explain", "check", "models",
           "gpus", "dtypes", "engines", "answer", "request_schema", "file", "command_line",
           "__version__"]
__version__: str = _core.version

Request = Mapping[str, Any]
Report = Dict[str, Any]


class KvscopeError(Exception):
    """An error the core reported: ``code`` (invalid_value, invalid_json, missing_field,
    out_of_range, unsupported, unknown_id, internal_error), ``field`` (the request key or
    config.json path it concerns) and the one-line ``message``, which names the field."""

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.message = message


def answer(command: str, request: Optional[Request] = None) -> Report:
    """The report for ``command`` (estimate, plan, sweep, solve, explain, check, models, gpus,
    dtypes, engines) and its request; raises KvscopeError."""
    try:
        text = json.dumps({} if request is None else request, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise KvscopeError("invalid_json", "request", f"request: not JSON: {e}") from None
    status, report, message = _core.answer(command, text)
    parsed = json.loads(report) if report else {}
    if status == 0:
        return parsed
    error = parsed.get("error") or {"code": "internal_error", "field": "", "message": message}
    raise KvscopeError(error["code"], error["field"], error["message"])


def estimate(request: Request) -> Report:
    """KV-cache bytes per token, per sequence and for the batch, per layer group."""
    return answer("estimate", request)


def plan(request: Request) -> Report:
    """The engine's KV budget on a card, the tokens and sequences it holds, whether it starts
    (``starts``, ``startup_error``), the largest max_model_len that fits, the roofline."""
    return answer("plan", request)


def sweep(request: Request) -> Report:
    """Chart data: KV bytes and sequences vs context, decode speed vs batch, memory per GPU."""
    return answer("sweep", request)


def solve(request: Request) -> Report:
    """A target (``concurrency`` sequences of ``context_tokens``) to the cheapest layout per GPU
    type; a target no option meets is an answer (``met: False``), not an error."""
    return answer("solve", request)


def explain(request: Request) -> Report:
    """A start-up log (``log: {"name", "text"}``): each figure it printed beside kvscope's."""
    return answer("explain", request)


def check(request: Request) -> Report:
    """A launch command as pasted (``launch``): starts or not, the fixes, flags not modelled."""
    return answer("check", request)


def models() -> Report:
    """The model catalogue (ids for ``model``)."""
    return answer("models")


def gpus() -> Report:
    """The GPU catalogue (ids for ``gpu``), memory as the device reports it."""
    return answer("gpus")


def dtypes() -> Report:
    """KV-cache and weight dtypes with their exact storage cost."""
    return answer("dtypes")


def engines() -> Report:
    """The serving engines: their knobs (request keys), levers and workload."""
    return answer("engines")


def request_schema(command: str) -> Dict[str, Any]:
    """The JSON Schema (2020-12) of a request for ``command``, as ``kvscope <command>
    --request-schema`` prints it."""
    return json.loads(_core.request_schema(command))


def file(path: Union[str, Path]) -> Dict[str, str]:
    """A file as a request holds one (``config``, ``log``, ``weights_index``): its name and text."""
    p = Path(path)
    return {"name": p.name, "text": p.read_text(encoding="utf-8", errors="replace")}


def command_line(args: List[str]) -> int:
    """Runs ``kvscope ARGS...`` as the native binary does, printing what it prints; the exit status."""
    status, out, err = _core.run_cli(list(args))
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    return status
