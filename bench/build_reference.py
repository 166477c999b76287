"""The build beside the work it delegates, like for like (issue 36), in interleaved rounds.

A cold build of the bench's own 100-tool project (bench_project.make_project) beside two
references on the same schemas, each in a fresh process as a user would run it (spawn and
imports included, as the build's CLI run includes them):

* **DMCG like for like**: datamodel-code-generator with ``formatters=[]`` (as the build
  calls it), then one ruff import-sort and format pass over all its output
  (render/formatting.format_modules, the build's own pass): the work the build delegates;
* **DMCG defaults**: datamodel-code-generator called plainly, its default formatters
  (black and isort on every schema): what a user calling it alone gets.

And a build after one inputSchema edit (caches warm from the cold build before it). Each
round runs all four, the order rotated round by round; reported: median (min..max).
Targets: cold <= 1.0x the like-for-like reference; after one edit <= 0.5x cold.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_project import cli, edit_tool, make_project
from provenance import interleaved, median, spread, stamp

HERE = Path(__file__).resolve().parent
LIKE_FOR_LIKE = "DMCG formatters=[] + one ruff pass (like for like)"
DEFAULTS = "DMCG with its defaults (black + isort per schema)"
COLD = "ours, cold build (CLI, caches empty)"
EDITED = "ours, build after one inputSchema edit"


def schemas(tools: list[dict[str, Any]]) -> list[Any]:
    return [d[key] for d in tools for key in ("inputSchema", "outputSchema") if key in d]


def dmcg(tools: list[dict[str, Any]], *, like_for_like: bool) -> list[str]:
    """datamodel-code-generator on every schema; like for like: its formatters off and
    the build's one ruff pass (sort imports, format) over all the modules at the end."""
    from datamodel_code_generator import DataModelType, InputFileType, PythonVersion, generate

    options: dict[str, Any] = {
        "input_file_type": InputFileType.JsonSchema,
        "output_model_type": DataModelType.TypingTypedDict,
        "target_python_version": PythonVersion.PY_311,
        "disable_timestamp": True,
        "class_name": "Model",
    }
    if like_for_like:
        options["formatters"] = []
    modules = [str(generate(schema, **options)) for schema in schemas(tools)]
    if like_for_like:
        from mcp_schemagen.render.formatting import format_modules

        modules = format_modules(modules)
    return modules


def dmcg_spawned(work: Path, tools: list[dict[str, Any]], like_for_like: bool) -> float:
    """Seconds of one fresh process running :func:`dmcg` (spawn and imports included)."""
    listing = work / "reference-tools.json"
    listing.write_text(json.dumps(tools))
    code = (
        "import json, sys, warnings; warnings.simplefilter('ignore'); "
        f"sys.path.insert(0, {str(HERE)!r}); from build_reference import dmcg; "
        f"dmcg(json.load(open({str(listing)!r})), like_for_like={like_for_like})"
    )
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def like_for_like(
    work: Path, env: dict[str, str], rounds: int, size: int = 100
) -> dict[str, list[float]]:
    """Seconds per round of the four measurements, interleaved."""
    project = work / f"like-for-like-{size}"
    tools = make_project(project, size)
    cache = work / f"like-for-like-cache-{size}"
    build_env = {**env, "MCP_CODEGEN_CACHE_DIR": str(cache)}
    originals = {p: p.read_text() for p in (project / "tools").glob("*.json")}
    edits = iter(range(1, 10_000))

    def timed(action: Any) -> float:
        start = time.perf_counter()
        action()
        return time.perf_counter() - start

    def cold() -> float:
        shutil.rmtree(project / "bench_server", ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        for path, text in originals.items():
            path.write_text(text)
        return timed(lambda: cli("build", "-q", str(project), env=build_env))

    def edited() -> float:
        # From the originals built (caches warm), one tool's inputSchema gains a property.
        for path, text in originals.items():
            path.write_text(text)
        cli("build", "-q", str(project), env=build_env)
        edit_tool(project, tools[next(edits) % len(tools)]["name"])
        return timed(lambda: cli("build", "-q", str(project), env=build_env))

    return interleaved(
        rounds,
        {
            COLD: cold,
            LIKE_FOR_LIKE: lambda: dmcg_spawned(work, tools, True),
            DEFAULTS: lambda: dmcg_spawned(work, tools, False),
            EDITED: edited,
        },
    )


def print_like_for_like(samples: dict[str, list[float]], size: int = 100) -> None:
    rounds = len(next(iter(samples.values())))
    print(f"\n{stamp()}")
    print(
        f"build of the {size}-tool bench project beside the work it delegates: "
        f"{rounds} interleaved rounds, median (min..max), fresh processes (spawn included)"
    )
    reference = median(samples[LIKE_FOR_LIKE])
    cold = median(samples[COLD])
    for name, values in samples.items():
        print(
            f"  {name:56} {spread(values, '{:.2f}', ' s'):>24} "
            f"{median(values) / reference:6.2f}x like for like"
        )
    edited = median(samples[EDITED])
    defaults = median(samples[DEFAULTS])
    print(
        f"  [{'met' if cold <= reference else 'MISSED'}] cold build <= 1.0x the like-for-like "
        f"reference: {cold / reference:.2f}x ({cold / defaults:.2f}x DMCG with its defaults)"
    )
    print(
        f"  [{'met' if edited <= 0.5 * cold else 'MISSED'}] build after one edit <= 0.5x a "
        f"cold one: {edited / cold:.2f}x"
    )
