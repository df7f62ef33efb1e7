"""`sitesift bench` of the default cleaner on sites it was not trained on, beside the peers.

1. `sitesift train-default CORPORA --folds K --heldout BUNDLE` trains the model K times,
   each time without one fold of sites, and writes a held-out bundle: every site of the
   corpora is scored by the forests that never saw it.
2. This script runs `sitesift bench` on each corpus in its own process (the machine is
   shared: per-corpus processes, `--workers 1`), with SITESIFT_DEFAULT_MODEL=BUNDLE, so the
   bench's `default` rows are cross-site figures; then merges the corpora's rows into
   OUT/all and renders one summary (`sitesift bench --from-pages`).

    D=../shared/datasets
    python benchmarks/default_bench.py --bundle /tmp/default-heldout.json.gz \\
        --out bench-default --peers all --parallel 2 \\
        $D/big9 $D/dragnet $D/cleanportaleval $D/cleaneval $D/l3s-gn1 $D/readability \\
        $D/wcxb $D/chaos
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--bundle", required=True, help="held-out bundle (train-default --heldout)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--methods", default="default")
    ap.add_argument("--peers", default="all")
    ap.add_argument("--parallel", type=int, default=2, help="corpora benched at once")
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SITESIFT_DEFAULT_MODEL": str(Path(args.bundle).resolve()),
           "OMP_NUM_THREADS": "1"}
    sitesift = shutil.which("sitesift") or "sitesift"
    queue = list(args.datasets)
    running: list[tuple[str, subprocess.Popen[bytes]]] = []
    failed = []
    while queue or running:
        while queue and len(running) < args.parallel:
            d = queue.pop(0)
            name = Path(d).name
            cmd = [sitesift, "bench", d, "--methods", args.methods, "--peers", args.peers,
                   "--workers", "1", "--no-plots", "--quiet", "--out", str(out / name)]
            if args.limit:
                cmd += ["--limit", str(args.limit)]
            log = open(out / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
            running.append((name, subprocess.Popen(cmd, env=env, stdout=log, stderr=log)))
            print(f"started {name}", file=sys.stderr)
        time.sleep(5)
        for item in list(running):
            name, proc = item
            if proc.poll() is not None:
                running.remove(item)
                print(f"finished {name}: exit {proc.returncode}", file=sys.stderr)
                if proc.returncode:
                    failed.append(name)
    merged = out / "all"
    merged.mkdir(exist_ok=True)
    info: dict = {}
    with open(merged / "pages.jsonl", "w", encoding="utf-8") as fh:
        for d in args.datasets:
            part = out / Path(d).name
            if not (part / "pages.jsonl").is_file():
                continue
            fh.write((part / "pages.jsonl").read_text(encoding="utf-8"))
            run = json.loads((part / "run.json").read_text(encoding="utf-8"))
            if not info:
                info = run
            else:
                info["corpora"].update(run["corpora"])
                info["skipped"].update(run.get("skipped", {}))
    info["command"] = (f"SITESIFT_DEFAULT_MODEL={args.bundle} sitesift bench "
                       + " ".join(args.datasets) + f" --methods {args.methods} --peers "
                       f"{args.peers} --workers 1 (one process per corpus, merged)")
    info["heldout_bundle"] = str(args.bundle)
    (merged / "run.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    subprocess.run([sitesift, "bench", "--from-pages", "--out", str(merged)], env=env,
                   check=False)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
