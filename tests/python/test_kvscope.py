"""The Python package as a user installs it: scripts/test-python.sh installs
build/python/kvscope-*.whl into a fresh venv with pip --no-index and runs these tests with that
venv's python. Each function's report is the native CLI's --json for the same request;
``python -m kvscope`` prints what the native binary prints, byte for byte, with its exit status."""
import doctest
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import kvscope

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("KVSCOPE_CLI", str(ROOT / "build/native/native-bench/kvscope"))
LOGS = ROOT / "tests/data/logs"


def native(args, stdin=None):
    r = subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True, cwd=ROOT)
    return r.returncode, r.stdout, r.stderr


def native_json(args):
    status, out, err = native([*args, "--json"])
    assert status in (0, 1), err
    return json.loads(out)


def test_installed_from_the_wheel_not_the_source_tree():
    assert "site-packages" in kvscope.__file__, kvscope.__file__
    installed = Path(kvscope.__file__).parent
    assert (installed / "py.typed").is_file() and (installed / "_core.pyi").is_file()
    assert kvscope.__version__ == native(["--version"])[1].split()[1]


def test_plan_is_the_cli_report():
    report = kvscope.plan({"model": "llama-3.1-8b", "gpu_memory_bytes": 24_000_000_000,
                           "max_model_len": 131072})
    assert report == native_json(["plan", "--model", "llama-3.1-8b", "--gpu-memory", "24GB",
                                  "--max-model-len", "131072"])
    assert report["starts"] is False
    assert report["max_model_len_that_fits"] == 28256


@pytest.mark.parametrize("function, request_, args", [
    (kvscope.estimate, {"model": "llama-3.1-8b", "context_tokens": 131072},
     ["estimate", "--model", "llama-3.1-8b", "--context", "128k"]),
    (kvscope.sweep, {"model": "deepseek-v2-lite", "gpu": "h100-sxm-80gb"},
     ["sweep", "--model", "deepseek-v2-lite", "--gpu", "h100-sxm-80gb"]),
    (kvscope.solve, {"model": "qwen3-32b", "concurrency": 20, "context_tokens": 32768},
     ["solve", "--model", "qwen3-32b", "--concurrency", "20", "--context", "32768"]),
    (kvscope.check, {"launch": "vllm serve Qwen/Qwen3-32B --max-model-len 131072"},
     ["check", "--launch", "vllm serve Qwen/Qwen3-32B --max-model-len 131072"]),
    (kvscope.explain, {"log": kvscope.file(LOGS / "sglang-qwen3-235b-a22b-fp8-tp4-h100.log"),
                       "model": "qwen3-235b-a22b", "weight_dtype": "fp8"},
     ["explain", str(LOGS / "sglang-qwen3-235b-a22b-fp8-tp4-h100.log"), "--model",
      "qwen3-235b-a22b", "--weight-dtype", "fp8"]),
])
def test_each_command_is_the_cli_report(function, request_, args):
    assert function(request_) == native_json(args)


def test_catalogues():
    assert kvscope.models() == native_json(["models"])
    assert kvscope.gpus() == native_json(["gpus"])
    assert kvscope.dtypes() == native_json(["dtypes"])
    assert kvscope.engines() == native_json(["engines"])
    assert any(m["id"] == "llama-3.1-8b" for m in kvscope.models()["models"])


def test_bad_input_raises_naming_the_key():
    with pytest.raises(kvscope.KvscopeError) as e:
        kvscope.plan({"model": "llama-3.1-8b", "batch": -1})
    assert (e.value.code, e.value.field) == ("invalid_value", "batch")
    assert str(e.value).startswith("batch: ")
    with pytest.raises(kvscope.KvscopeError) as e:
        kvscope.plan({"model": "llama-3.1-8b", "vllm": {"gpu_memory_utilisation": 0.9}})
    assert e.value.field == "vllm.gpu_memory_utilisation"
    with pytest.raises(kvscope.KvscopeError) as e:
        kvscope.estimate({"model": "no-such-model"})
    assert (e.value.code, e.value.field) == ("unknown_id", "model")
    for not_json in ({"model": "llama-3.1-8b", "batch": {1, 2}},
                     {"model": "llama-3.1-8b", "context_tokens": float("nan")}):
        with pytest.raises(kvscope.KvscopeError) as e:
            kvscope.plan(not_json)
        assert (e.value.code, e.value.field) == ("invalid_json", "request")
    with pytest.raises(kvscope.KvscopeError) as e:
        kvscope.answer("frobnicate", {})
    assert e.value.field == "command"


def test_request_schema_is_the_cli_one():
    status, out, _ = native(["plan", "--request-schema"])
    assert status == 0
    assert kvscope.request_schema("plan") == json.loads(out)
    with pytest.raises(ValueError):
        kvscope.request_schema("frobnicate")


ARGUMENT_LINES = [
    ["plan", "--model", "llama-3.1-8b", "--gpu-memory", "24GB", "--max-model-len", "131072"],
    ["plan", "--model", "qwen3-32b", "--gpu", "rtx-4090", "--engine", "ollama", "--json"],
    ["check", "--", "vllm", "serve", "Qwen/Qwen3-32B", "--max-model-len", "131072"],
    ["explain", str(LOGS / "sglang-qwen3-235b-a22b-fp8-tp4-h100.log"), "--model", "qwen3-235b-a22b"],
    ["--help"], ["--version"], ["plan", "--model", "x"], ["frobnicate"],
]


@pytest.mark.parametrize("args", ARGUMENT_LINES, ids=lambda a: " ".join(a)[:40])
def test_python_m_kvscope_is_the_native_cli(args):
    r = subprocess.run([sys.executable, "-m", "kvscope", *args], capture_output=True, text=True,
                       cwd=ROOT)
    assert (r.returncode, r.stdout, r.stderr) == native(args)


def test_kvscope_script_reads_standard_input():
    log = (LOGS / "sglang-qwen3-235b-a22b-fp8-tp4-h100.log").read_text()
    args = ["explain", "-", "--model", "qwen3-235b-a22b", "--json"]
    script = Path(sys.executable).parent / "kvscope"
    r = subprocess.run([str(script), *args], input=log, capture_output=True, text=True, cwd=ROOT)
    assert (r.returncode, r.stdout, r.stderr) == native(args, stdin=log)


def test_threads_answer_alike():
    request = {"model": "qwen3-32b", "gpu": "h100-sxm-80gb", "context_tokens": 32768}
    expected = kvscope.plan(request)
    with ThreadPoolExecutor(4) as pool:
        reports = list(pool.map(lambda _: kvscope.plan(request), range(32)))
    assert all(r == expected for r in reports)


def test_the_docstring_example_runs():
    failures, tried = doctest.testmod(kvscope)
    assert tried >= 2 and failures == 0
