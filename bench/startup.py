"""Start-up cost of the CLI: what a person waits for before anything happens.

    nice -n 10 .venv/bin/python bench/startup.py [--repeat 5] [--format json]

Runs each command in a fresh process ``--repeat`` times and reports the
least CPU time (user + system of the child) and wall time of each, beside a
bare interpreter and a peer doing the same one-page job in the same run
(pdfminer.six's ``extract_text``, when installed):

- ``ragprep --version`` and ``ragprep run --help``: the CLI's import;
- ``ragprep extract one-page.pdf``: a one-page extract, start to finish;
- the one-page extract's modules: the heavy libraries it must not load
  (chunking, Parquet, plotting; ``tests/pipeline/test_cli_conventions.py``
  guards that list).

Target (issue 16): ``--help`` and a one-page extract well under a second.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "pipeline")]

from pipelinedocs import report_pdf  # noqa: E402

BIN = Path(sys.executable).parent
PEER = "import sys\nfrom pdfminer.high_level import extract_text\nprint(extract_text(sys.argv[1]))"


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(args: list[str], repeat: int) -> dict[str, float]:
    """Least CPU and wall seconds of `repeat` runs of `args` (output discarded)."""
    cpu, wall = [], []
    for _ in range(repeat):
        before, started = _child_cpu(), time.perf_counter()
        done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        wall.append(time.perf_counter() - started)
        cpu.append(_child_cpu() - before)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {done.stderr.decode(errors='replace')}")
    return {"cpu": min(cpu), "wall": min(wall)}


def has_pdfminer() -> bool:
    return subprocess.run([sys.executable, "-c", "import pdfminer.high_level"], capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args()
    ragprep = str(BIN / "ragprep")
    with tempfile.TemporaryDirectory(prefix="ragprep-bench-startup-") as work:
        page = Path(work) / "one-page.pdf"
        page.write_bytes(report_pdf("One page", pages=1))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "ragprep --version": [ragprep, "--version"],
            "ragprep run --help": [ragprep, "run", "--help"],
            "ragprep extract one-page.pdf": [ragprep, "extract", str(page)],
        }
        if has_pdfminer():
            commands["pdfminer.six extract_text one-page.pdf"] = [sys.executable, "-c", PEER, str(page)]
        env_note = {"RAGPREP_PURE": os.environ.get("RAGPREP_PURE", "")}
        report: dict[str, object] = {"repeat": args.repeat, "env": env_note, "target_seconds": 1.0}
        results = {name: measure(argv, args.repeat) for name, argv in commands.items()}
    report["commands"] = results
    peer = results.get("pdfminer.six extract_text one-page.pdf")
    if peer:
        report["extract_cpu_vs_pdfminer"] = results["ragprep extract one-page.pdf"]["cpu"] / peer["cpu"]
    if args.format == "json":
        print(json.dumps(report, indent=2))
        return
    print(f"least of {args.repeat} runs, fresh process each (target: well under 1 s)")
    print(f"  {'command':<42} {'cpu s':>7} {'wall s':>7}")
    for name, row in results.items():
        print(f"  {name:<42} {row['cpu']:>7.3f} {row['wall']:>7.3f}")
    if peer:
        print(f"one-page extract CPU vs pdfminer.six: {report['extract_cpu_vs_pdfminer']:.2f}x")


if __name__ == "__main__":
    main()
