"""
`make fuzz`: schemathesis against the production stack, held to the API's own schema.

    python -m tests.fuzz [--examples 25] [--seconds 180] [--seed 20261122]

Serves the catalog as `make serve` does (production settings, gunicorn, 2 workers) on a free
loopback port, with throttling off, on the database DATABASE_URL names (else a new SQLite file),
migrated and filled from the fixtures. Then runs `st run` on /api/schema/ with every check
(schemathesis.toml names the three operations exempt from one of them, and why), a bounded number
of examples per operation, a fixed seed and a time limit. Fails if schemathesis finds anything,
or if the server's log holds a traceback.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import serve

SEED = 20261122


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--examples", type=int, default=25, help="examples per operation")
    parser.add_argument("--seconds", type=int, default=180, help="time limit of the run")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="catalog-fuzz-"))
    overrides = {"API_ANON_RATE": ""}
    if os.environ.get("DATABASE_URL"):
        overrides["DATABASE_URL"] = os.environ["DATABASE_URL"]
    env = serve.production_env(workdir, **overrides)
    print(f"Preparing the catalog ({env['DATABASE_URL'].split(':', 1)[0]}) in {workdir}")
    serve.prepare(env, collectstatic=True)

    port = serve.free_port()
    log_path = workdir / "server.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            serve.gunicorn_command(port, workers=2),
            env=env,
            cwd=serve.ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            serve.wait_until_up(url, server, timeout=30)
            command = [
                str(Path(sys.executable).with_name("st")), "run", f"{url}/api/schema/?format=json",
                "--max-examples", str(args.examples),
                "--seed", str(args.seed),
                "--max-time", str(args.seconds),
                "--workers", "2",
                "--generation-database", "none",
                "--no-color",
            ]  # fmt: skip
            print(" ".join(command), flush=True)
            result = subprocess.run(command, cwd=serve.ROOT, stdin=subprocess.DEVNULL)
        finally:
            serve.stop(server)
    tracebacks = log_path.read_text(errors="replace").count("Traceback")
    print(f"Server log: {log_path} ({tracebacks} traceback(s))")
    if tracebacks:
        print(log_path.read_text(errors="replace")[-5000:])
    if result.returncode != 0 or tracebacks:
        print("fuzz: FAILED (schemathesis failures or server tracebacks)")
        return 1
    print("fuzz: 0 failures, 0 server tracebacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
