"""
Run the catalog the way `make serve` does (production settings, gunicorn, whitenoise) on a
free loopback port, against a database and caches of the caller's choosing. Used by the
benchmark and by the tests that need real processes.
"""

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def production_env(workdir, **overrides):
    """Environment for production settings with everything local to ``workdir``."""
    workdir = Path(workdir)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_HTTPS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"sqlite:///{workdir / 'catalog.sqlite3'}",
        "DJANGO_CACHE_DIR": str(workdir / "cache"),
        "DJANGO_STATIC_ROOT": str(workdir / "static"),
        "PYTHONPATH": str(ROOT),
    }
    env.update({key: str(value) for key, value in overrides.items()})
    return env


def manage(env, *args, check=True):
    """Run a management command; with ``check``, a failure raises with what the command said."""
    result = subprocess.run(
        [PYTHON, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if check and result.returncode:
        error = subprocess.CalledProcessError(
            result.returncode, result.args, result.stdout, result.stderr
        )
        error.add_note(f"manage.py {' '.join(args)} said:\n{result.stderr or result.stdout}")
        raise error
    return result


def prepare(env, *, load_fixtures=True, collectstatic=False):
    """migrate (+ collectstatic) (+ the fixtures), as `make serve` does."""
    manage(env, "migrate", "--no-input", "-v0")
    if collectstatic:
        manage(env, "collectstatic", "--no-input", "-v0")
    if load_fixtures:
        manage(env, "load_catalog", "--if-empty", "-v0")


def gunicorn_command(port, workers=2):
    """What `make serve` runs, on ``port``."""
    return [
        PYTHON, "-m", "gunicorn", "config.wsgi",
        "--config", str(ROOT / "config" / "gunicorn.py"),
        "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers),
        "--log-level", "warning",
    ]  # fmt: skip


class Server:
    """A gunicorn master and its workers, on ``url``."""

    def __init__(self, url, process):
        self.url, self.process = url, process

    def worker_pids(self):
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def worker_memory_mb(self, field="VmHWM"):
        """Each worker's peak (VmHWM) or current (VmRSS) resident memory, in MB."""
        return [memory_mb(pid, field) for pid in self.worker_pids()]


def memory_mb(pid, field="VmHWM"):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024  # kB
    raise RuntimeError(f"no {field} for process {pid}")


def reset_peak_memory(pid):
    """Start a process's VmHWM again from its current RSS (Linux: clear_refs, 5)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


@contextlib.contextmanager
def server(env, workers=2, timeout=30):
    """A gunicorn serving with ``env`` (a Server); stopped, with its workers, on exit."""
    port = free_port()
    # gunicorn's log goes to a file: a pipe that nobody reads while the server runs fills up
    # (64 KiB: a few thousand lines, one for each 400 the load asks for), and then every
    # worker blocks on its next line of log and the server stops answering.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            gunicorn_command(port, workers),
            env=env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(url, process, timeout, log)
            yield Server(url, process)
        finally:
            stop(process)


@contextlib.contextmanager
def running(env, workers=2, timeout=30):
    """A gunicorn serving with ``env``; yields its base URL and stops it on exit."""
    with server(env, workers, timeout) as started:
        yield started.url


def stop(process):
    """Stop a server started in a session of its own, with its workers."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until_up(url, process, timeout, log=None):
    """Until ``url`` answers; a server that exits first raises, with the end of ``log``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = "(see its log)"
            if log is not None:
                log.seek(0)
                said = log.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"the server exited: {said}")
        try:
            # Any HTTP answer will do; the admin's login page is neither throttled nor cached.
            with urllib.request.urlopen(f"{url}/admin/login/", timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server at {url} did not answer within {timeout}s")


def measure_in_child(module, args, env):
    """Run ``python -m module args`` in ``env`` and return the JSON figures it prints last."""
    child = subprocess.run(
        [PYTHON, "-m", module, *map(str, args)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if child.returncode != 0:
        raise SystemExit(f"{module} failed:\n{child.stderr[-3000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def write_figures(out, key, figures):
    """Put ``figures`` under ``key`` in the results file ``out`` (if given), and print them."""
    if out:
        path = Path(out)
        results = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        results[key] = figures
        path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(figures), file=sys.stdout)
    return figures
