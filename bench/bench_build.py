"""How long `check` and `build` take on a 100-tool project, beside datamodel-code-generator
run alone on the same schemas. One run prints every figure; medians of repeated runs.

    .venv/bin/python bench/bench_build.py [--tools 100] [--repeat 15]

Needs the protocol schemas (MCP_CODEGEN_SPEC_MIRROR, or the cache from `mcp-codegen
specs pull`). Timings are wall-clock on a noisy machine: read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHARED_SPECS = HERE.parent.parent / "shared" / "specs"


def small(index: int) -> dict[str, Any]:
    return {
        "name": f"small_{index}",
        "description": "A small tool: a string and an enum with a default.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "mode": {"type": "string", "enum": ["fast", "exact"], "default": "fast"},
            },
            "required": ["query"],
        },
    }


def medium(index: int) -> dict[str, Any]:
    line = {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
        "required": ["sku", "qty"],
    }
    properties: dict[str, Any] = {
        f"field_{n}": {"type": "string", "maxLength": 64} for n in range(10)
    }
    properties |= {
        "customer": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
        },
        "lines": {"type": "array", "items": line},
        "priority": {"type": "integer", "minimum": 0, "maximum": 9, "default": 5},
        "tags": {"type": "array", "items": {"type": "string"}},
        "express": {"type": "boolean", "default": False},
    }
    return {
        "name": f"medium_{index}",
        "description": "About fifteen properties, nested objects and arrays of objects.",
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": ["customer", "lines"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "total": {"type": "number"}},
            "required": ["order_id", "total"],
        },
    }


def composed(index: int) -> dict[str, Any]:
    return {
        "name": f"composed_{index}",
        "description": "$defs, $ref and oneOf.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "shape": {"oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]}
            },
            "required": ["shape"],
            "$defs": {
                "Circle": {
                    "type": "object",
                    "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                    "required": ["kind", "r"],
                },
                "Square": {
                    "type": "object",
                    "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                    "required": ["kind", "side"],
                },
            },
        },
    }


def make_project(root: Path, count: int) -> list[dict[str, Any]]:
    shapes = (small, medium, composed)
    tools = [shapes[i % 3](i) for i in range(count)]
    (root / "tools").mkdir(parents=True)
    for definition in tools:
        (root / "tools" / f"{definition['name']}.json").write_text(json.dumps(definition, indent=2))
    (root / "pyproject.toml").write_text(
        '[project]\nname = "bench"\nversion = "0.1.0"\n\n[tool.mcp-codegen]\npackage = "bench_server"\n'
    )
    return tools


def median_seconds(
    action: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None
) -> float:
    samples = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def cli(*argv: str, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", *argv], env=env, check=True, capture_output=True
    )


def datamodel_alone(tools: list[dict[str, Any]]) -> None:
    from datamodel_code_generator import DataModelType, InputFileType, PythonVersion, generate

    for definition in tools:
        for key in ("inputSchema", "outputSchema"):
            if key in definition:
                generate(
                    definition[key],
                    input_file_type=InputFileType.JsonSchema,
                    output_model_type=DataModelType.TypingTypedDict,
                    target_python_version=PythonVersion.PY_311,
                    disable_timestamp=True,
                    class_name="Model",
                )


def protocol_models_alone() -> None:
    from mcp_schemagen import specs
    from mcp_schemagen.protocol_models import render_protocol_module
    from mcp_schemagen.runtime.protocol import DEFAULT_NAMES

    for revision in DEFAULT_NAMES:  # what the benchmarked project builds
        render_protocol_module(specs.load(revision), use_cache=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--build-repeat", type=int, default=3)
    options = parser.parse_args()
    warnings.simplefilter("ignore", FutureWarning)  # datamodel-code-generator's notice on defaults
    if "MCP_CODEGEN_SPEC_MIRROR" not in os.environ and SHARED_SPECS.is_dir():
        os.environ["MCP_CODEGEN_SPEC_MIRROR"] = str(SHARED_SPECS)
    env = dict(os.environ)
    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-"))
    try:
        project = work / "project"
        tools = make_project(project, options.tools)
        warm_cache = work / "warm-cache"
        env_warm = {**env, "MCP_CODEGEN_CACHE_DIR": str(warm_cache)}
        cli("build", "-q", str(project), env=env_warm)

        rows: list[tuple[str, float]] = []
        rows.append(
            (
                "mcp-codegen check, unchanged (CLI, spawn included)",
                median_seconds(lambda: cli("check", str(project), env=env_warm), options.repeat),
            )
        )
        handlers = project / "bench_server" / "handlers.py"
        original = handlers.read_text()
        handlers.write_text(
            original.replace('raise NotImplementedError("small_0")', 'return "edited body"', 1)
        )
        rows.append(
            (
                "mcp-codegen check, a handler body edited (CLI)",
                median_seconds(lambda: cli("check", str(project), env=env_warm), options.repeat),
            )
        )
        handlers.write_text(original)

        def fresh_copy() -> None:
            shutil.rmtree(project / "bench_server", ignore_errors=True)

        def cold_cache() -> None:
            fresh_copy()
            shutil.rmtree(work / "cold-cache", ignore_errors=True)

        env_cold = {**env, "MCP_CODEGEN_CACHE_DIR": str(work / "cold-cache")}
        rows.append(
            (
                "mcp-codegen build, from nothing, cold caches (CLI)",
                median_seconds(
                    lambda: cli("build", "-q", str(project), env=env_cold),
                    options.build_repeat,
                    cold_cache,
                ),
            )
        )
        rows.append(
            (
                "mcp-codegen build, from nothing, warm caches (CLI)",
                median_seconds(
                    lambda: cli("build", "-q", str(project), env=env_warm),
                    options.build_repeat,
                    fresh_copy,
                ),
            )
        )
        rows.append(
            (
                "  of which: protocol models of 5 revisions, no cache (in process)",
                median_seconds(protocol_models_alone, options.build_repeat),
            )
        )
        rows.append(
            (
                "datamodel-code-generator alone, same schemas (in process)",
                median_seconds(lambda: datamodel_alone(tools), options.build_repeat),
            )
        )
        rows.append(
            (
                "datamodel-code-generator alone, same schemas (one process, spawn included)",
                median_seconds(
                    lambda: subprocess.run(
                        [
                            sys.executable,
                            "-c",
                            f"import json,sys; sys.path.insert(0, {str(HERE)!r}); "
                            f"from bench_build import datamodel_alone; datamodel_alone(json.load(open({str(work / 'tools.json')!r})))",
                        ],
                        check=True,
                    ),
                    options.build_repeat,
                    lambda: (work / "tools.json").write_text(json.dumps(tools)),
                ),
            )
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    reference = rows[-1][1]
    print(
        f"\n{options.tools} tools; medians of {options.repeat} (check) and {options.build_repeat} (build) runs\n"
    )
    print(f"{'':74} {'seconds':>9} {'vs DMCG alone':>14}")
    for label, seconds in rows:
        print(f"{label:74} {seconds:9.3f} {seconds / reference:13.2f}x")


if __name__ == "__main__":
    main()
