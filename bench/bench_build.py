"""How long `check` and `build` take on projects of 10, 100 and 500 tools and on one
5,000-property schema, beside datamodel-code-generator run alone on the same schemas; black
beside ruff on the same generated modules; protocol models cold and warm. First, the
like-for-like table (bench/build_reference.py): the cold 100-tool build and a build after
one edit beside DMCG with `formatters=[]` plus one ruff pass, and DMCG with its defaults,
in interleaved rounds (median and min..max). One run prints every figure, with the commit
and the machine.

    .venv/bin/python bench/bench_build.py [--rounds 5] [--sizes 10,100,500] [--repeat 5]
        [--build-repeat 3] [--plots DIR] [--quick] [--like-for-like-only]

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

from bench_project import cli, edit_tool, make_project, wide
from build_reference import like_for_like, print_like_for_like
from plots import DEFAULT_DIR, plot_build
from provenance import stamp

HERE = Path(__file__).resolve().parent
SHARED_SPECS = HERE.parent.parent / "shared" / "specs"


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


def protocol_models_alone(use_cache: bool) -> None:
    from mcp_schemagen.load import specs
    from mcp_schemagen.protocol_models.models import render_protocol_module
    from mcp_schemagen.runtime.protocol import DEFAULT_NAMES

    for revision in DEFAULT_NAMES:  # what the benchmarked project builds
        render_protocol_module(specs.load(revision), use_cache=use_cache)


def datamodel_alone_spawned(work: Path, tools: list[dict[str, Any]]) -> float:
    """datamodel-code-generator on the same schemas in one fresh process, as a user
    running it alone would: spawn and imports included."""
    (work / "tools.json").write_text(json.dumps(tools))
    code = (
        f"import json, sys, warnings; warnings.simplefilter('ignore'); sys.path.insert(0, {str(HERE)!r}); "
        f"from bench_build import datamodel_alone; datamodel_alone(json.load(open({str(work / 'tools.json')!r})))"
    )
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def formatter_figures(package: Path, repeat: int) -> list[tuple[str, float, float]]:
    """black (each module, in process: the old formatter) beside ruff (one process for all
    of them: the formatter now) on the same generated modules, as the build wrote them."""
    import black
    from black.mode import TargetVersion

    from mcp_schemagen.render.formatting import format_modules

    sources = [p.read_text() for p in sorted(package.rglob("*.py")) if "_runtime" not in p.parts]
    mode = black.Mode(target_versions={TargetVersion.PY311}, line_length=100)
    black_seconds = median_seconds(
        lambda: [black.format_str(s, mode=mode) for s in sources], repeat
    )
    ruff_seconds = median_seconds(lambda: format_modules(sources), repeat)
    label = f"  {len(sources)} generated modules"
    return [(f"{label}, black {black.__version__} (in process)", black_seconds, ruff_seconds)]


def project_rows(
    work: Path, size: int, env: dict[str, str], options: argparse.Namespace
) -> tuple[list[tuple[str, float]], float]:
    project = work / f"project-{size}"
    tools = make_project(project, size)
    cold_env = {**env, "MCP_CODEGEN_CACHE_DIR": str(work / f"cold-{size}")}
    warm_env = {**env, "MCP_CODEGEN_CACHE_DIR": str(work / f"warm-{size}")}

    def from_nothing(cache: str | None) -> Callable[[], None]:
        def setup() -> None:
            shutil.rmtree(project / "bench_server", ignore_errors=True)
            if cache:
                shutil.rmtree(work / cache, ignore_errors=True)

        return setup

    rows = [
        (
            "build from nothing, cold caches",
            median_seconds(
                lambda: cli("build", "-q", str(project), env=cold_env),
                options.build_repeat,
                from_nothing(f"cold-{size}"),
            ),
        )
    ]
    cli("build", "-q", str(project), env=warm_env)
    rows.append(
        (
            "build from nothing, warm caches",
            median_seconds(
                lambda: cli("build", "-q", str(project), env=warm_env),
                options.build_repeat,
                from_nothing(None),
            ),
        )
    )
    rows.append(
        (
            "build, nothing changed",
            median_seconds(lambda: cli("build", "-q", str(project), env=warm_env), options.repeat),
        )
    )
    rows.append(
        (
            "check, nothing changed",
            median_seconds(lambda: cli("check", str(project), env=warm_env), options.repeat),
        )
    )
    originals = {p: p.read_text() for p in (project / "tools").glob("*.json")}
    edits = iter(range(1, 10_000))

    def edit_one() -> None:
        for path, text in originals.items():
            path.write_text(text)
        edit_tool(project, tools[next(edits) % len(tools)]["name"])

    def check_stale() -> None:
        run = subprocess.run(
            [sys.executable, "-m", "mcp_schemagen.cli", "check", str(project)],
            env=warm_env,
            capture_output=True,
        )
        assert run.returncode == 1, run.stderr

    rows.append(
        (
            "check after one tool's inputSchema edit",
            median_seconds(check_stale, options.repeat, edit_one),
        )
    )
    rows.append(
        (
            "build after one tool's inputSchema edit",
            median_seconds(
                lambda: cli("build", "-q", str(project), env=warm_env), options.repeat, edit_one
            ),
        )
    )
    reference = statistics.median(
        datamodel_alone_spawned(work, tools) for _ in range(options.build_repeat)
    )
    return rows, reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,500", help="tool counts, comma-separated")
    parser.add_argument("--properties", default="1000,5000", help="sizes of the wide schema")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--build-repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved like-for-like rounds")
    parser.add_argument("--like-for-like-only", action="store_true")
    parser.add_argument(
        "--plots", type=Path, nargs="?", const=DEFAULT_DIR, metavar="DIR",
        help="write the figures as SVG images and a markdown fragment into DIR "
        "(default docs/benchmarks)",
    )  # fmt: skip
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 2 rounds, 10 and 30 tools, 1 repeat"
    )
    options = parser.parse_args()
    if options.quick:
        options.rounds, options.repeat, options.build_repeat = 2, 1, 1
        options.sizes, options.properties = "10,30", "200"
    warnings.simplefilter("ignore", FutureWarning)  # datamodel-code-generator's notice on defaults
    if "MCP_CODEGEN_SPEC_MIRROR" not in os.environ and SHARED_SPECS.is_dir():
        os.environ["MCP_CODEGEN_SPEC_MIRROR"] = str(SHARED_SPECS)
    env = dict(os.environ)
    work = Path(tempfile.mkdtemp(prefix="mcp-codegen-bench-"))
    sections: list[tuple[str, list[tuple[str, float]], float, str]] = []
    try:
        print("measuring like for like ...", file=sys.stderr, flush=True)
        size = 30 if options.quick else 100
        like = like_for_like(work, env, options.rounds, size)
        print_like_for_like(like, size)
        if options.like_for_like_only:
            if options.plots:
                plot_build(options.plots, like, {}, quick=options.quick)
            return
        by_size: dict[int, list[tuple[str, float]]] = {}
        for size in (int(n) for n in options.sizes.split(",")):
            print(f"measuring {size} tools ...", file=sys.stderr, flush=True)
            rows, reference = project_rows(work, size, env, options)
            by_size[size] = [*rows, ("DMCG with its defaults", reference)]
            sections.append(
                (f"{size} tools (CLI, spawn included)", rows, reference, "DMCG with its defaults")
            )

        for count in (int(n) for n in options.properties.split(",")):
            print(f"measuring {count} properties ...", file=sys.stderr, flush=True)
            project = work / f"wide-{count}"
            tools = make_project(project, 1, [wide(count)], extra='revisions = ["2025-11-25"]\n')
            cache = {**env, "MCP_CODEGEN_CACHE_DIR": str(work / f"wide-cache-{count}")}

            def setup(project: Path = project, count: int = count) -> None:
                shutil.rmtree(project / "bench_server", ignore_errors=True)
                shutil.rmtree(work / f"wide-cache-{count}", ignore_errors=True)

            seconds = median_seconds(
                lambda project=project, cache=cache: cli("build", "-q", str(project), env=cache),
                options.build_repeat,
                setup,
            )
            reference = statistics.median(
                datamodel_alone_spawned(work, tools) for _ in range(options.build_repeat)
            )
            sections.append(
                (
                    f"one tool of {count} properties",
                    [("build from nothing, cold caches", seconds)],
                    reference,
                    "DMCG with its defaults",
                )
            )

        print("measuring formatters and protocol models ...", file=sys.stderr, flush=True)
        package = work / f"project-{options.sizes.split(',')[1 if ',' in options.sizes else 0]}"
        for label, black_seconds, ruff_seconds in formatter_figures(
            package / "bench_server", options.build_repeat
        ):
            sections.append(
                ("formatting", [(label, black_seconds)], ruff_seconds, "ruff, one process")
            )
        models_project = work / "with-models"
        make_project(models_project, 3, extra="protocol-models = true\n")
        models_env = {**env, "MCP_CODEGEN_CACHE_DIR": str(work / "models-cache")}

        def no_models_cache() -> None:
            shutil.rmtree(models_project / "bench_server", ignore_errors=True)
            shutil.rmtree(work / "models-cache", ignore_errors=True)

        cold = median_seconds(
            lambda: cli("build", "-q", str(models_project), env=models_env),
            options.build_repeat,
            no_models_cache,
        )
        warm = median_seconds(
            lambda: cli("build", "-q", str(models_project), env=models_env),
            options.build_repeat,
            lambda: shutil.rmtree(models_project / "bench_server", ignore_errors=True),
        )
        plain_project = work / "without-models"
        make_project(plain_project, 3)
        plain_env = {**env, "MCP_CODEGEN_CACHE_DIR": str(work / "plain-cache")}
        plain = median_seconds(
            lambda: cli("build", "-q", str(plain_project), env=plain_env),
            options.build_repeat,
            lambda: (
                shutil.rmtree(plain_project / "bench_server", ignore_errors=True),
                shutil.rmtree(work / "plain-cache", ignore_errors=True),
            ),
        )
        alone = median_seconds(lambda: protocol_models_alone(False), options.build_repeat)
        sections.append(
            (
                "3 tools, protocol models of 5 revisions (CLI)",
                [
                    ("build from nothing, default (no models)", plain),
                    ("build from nothing, protocol-models = true, cold cache", cold),
                    ("build from nothing, protocol-models = true, warm cache", warm),
                ],
                alone,
                "DMCG + ruff on the 5 schemas alone",
            )
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"\n{stamp()}")
    print(f"medians of {options.repeat} (check, edits) and {options.build_repeat} (builds) runs")
    for title, rows, reference, peer in sections:
        print(f"\n{title}: {peer} {reference:.3f} s")
        for label, seconds in rows:
            print(f"  {label:66} {seconds:8.3f} s {seconds / reference:7.2f}x {peer}")
    if options.plots:
        plot_build(options.plots, like, by_size, quick=options.quick)


if __name__ == "__main__":
    main()
