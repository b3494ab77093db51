"""A real `vasana serve` node on a scratch data directory, driven through the binary's own
commands: `vasana init`, `vasana serve`, `vasana status` (readiness), `vasana import`,
`vasana recall --batch`, and any client command with JSON output through cli(). Standard library
only.

The node is started with prctl(PR_SET_PDEATHSIG, SIGTERM) so that it stops even when the
harness is killed outright; stop() (also called on leaving a `with` block) sends SIGTERM, waits
at most STOP_TIMEOUT seconds for the orderly stop, then SIGKILLs and reaps it."""
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

READY_TIMEOUT = 30.0  # seconds for init + serve to answer `vasana status`
STOP_TIMEOUT = 30.0  # seconds for SIGTERM to stop the node before SIGKILL
IMPORT_TIMEOUT = 600.0  # seconds for one `vasana import` (a realm)
RECALL_TIMEOUT = 600.0  # seconds for one `vasana recall --batch` file
CLI_TIMEOUT = 60.0  # seconds for one client command through cli()

_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


def toml_value(v):
    """A bool, number or string as TOML writes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return json.dumps(str(v))


class NodeError(RuntimeError):
    pass


class CommandError(NodeError):
    """A client command that ended with a nonzero exit code: the code and its stderr."""

    def __init__(self, args, returncode, stderr):
        self.args_given = list(args)
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(f"vasana {args[0]} ended with {returncode}: {stderr}")


class Node:
    """`with Node(binary) as node:` starts a node on a fresh directory under /tmp and removes
    it again after stopping the node (unless keep_dir). recall: [recall] keys of the node's
    configuration file ({"hdc_lane": True}); none: the defaults, with no configuration file."""

    def __init__(self, binary, keep_dir=False, log=sys.stderr, recall=None):
        self.binary = binary
        self.recall = recall or {}
        self.keep_dir = keep_dir
        self.log = log
        self.dir = None
        self.proc = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _run(self, args, timeout, stdin=None):
        return subprocess.run([self.binary] + args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, text=True, preexec_fn=_die_with_parent)

    def start(self):
        # /tmp keeps the IPC socket path (DIR/client.sock) short.
        self.dir = tempfile.mkdtemp(prefix="vasana-eval-", dir="/tmp")
        data = os.path.join(self.dir, "data")
        r = self._run(["init", "--data", data], timeout=READY_TIMEOUT)
        if r.returncode != 0:
            raise NodeError(f"vasana init ended with {r.returncode}: {r.stderr.strip()}")
        self.data = data
        self.stderr_path = os.path.join(self.dir, "serve.log")
        serve = [self.binary, "serve", "--data", data]
        if self.recall:
            config = os.path.join(self.dir, "vasana.toml")
            with open(config, "w") as f:
                f.write("[recall]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in self.recall.items()))
            serve += ["--config", config]
        with open(self.stderr_path, "w") as err:
            self.proc = subprocess.Popen(serve, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + READY_TIMEOUT
        last = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise NodeError(f"vasana serve ended with {self.proc.returncode} before it was ready: {self.serve_log()}")
            if os.path.exists(os.path.join(data, "client.endpoint")):
                try:
                    r = self._run(["status", "--data", data, "--json"], timeout=10)
                    if r.returncode == 0:
                        return
                    last = r.stderr.strip()
                except subprocess.TimeoutExpired:
                    last = "vasana status did not answer within 10 s"
            time.sleep(0.1)
        raise NodeError(f"vasana serve was not ready within {READY_TIMEOUT:.0f} s ({last}): {self.serve_log()}")

    def serve_log(self):
        try:
            with open(self.stderr_path) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                print(f"eval: vasana serve (pid {self.proc.pid}) did not stop within {STOP_TIMEOUT:.0f} s: killed",
                      file=self.log)
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.dir and not self.keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def import_realm(self, realm, path):
        """`vasana import --realm realm path`; returns its summary line."""
        r = self._run(["import", "--data", self.data, "--realm", realm, path], timeout=IMPORT_TIMEOUT)
        if r.returncode != 0:
            raise NodeError(f"vasana import --realm {realm} ended with {r.returncode}: {r.stderr.strip()[-2000:]}")
        return r.stdout.strip()

    def import_many(self, jobs, parallel=2, progress=None):
        """Imports [(realm, path)], at most `parallel` imports at once; progress(done, total).
        On any error or interruption the imports still running are killed."""
        running = []
        done = 0
        pending = list(jobs)
        try:
            while pending or running:
                while pending and len(running) < parallel:
                    realm, path = pending.pop(0)
                    p = subprocess.Popen([self.binary, "import", "--data", self.data, "--realm", realm, path],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                         preexec_fn=_die_with_parent)
                    running.append((realm, p, time.monotonic()))
                still = []
                for realm, p, started in running:
                    if p.poll() is None:
                        if time.monotonic() - started > IMPORT_TIMEOUT:
                            raise NodeError(f"vasana import --realm {realm} took more than {IMPORT_TIMEOUT:.0f} s")
                        still.append((realm, p, started))
                        continue
                    _, err = p.communicate()
                    if p.returncode != 0:
                        raise NodeError(f"vasana import --realm {realm} ended with {p.returncode}: {err.strip()[-2000:]}")
                    done += 1
                    if progress:
                        progress(done, len(jobs))
                running = still
                if running:
                    time.sleep(0.02)
        finally:
            for _, p, _ in running:
                if p.poll() is None:
                    p.kill()
                p.wait()

    def recall_batch(self, lines, path, limit):
        """Runs `vasana recall --batch path --limit limit` over the query objects `lines` (written
        to path, one JSON line each) and returns one parsed answer line per query, in order.
        A line the CLI or node refused comes back as {"error": ...}."""
        with open(path, "w", encoding="utf-8") as f:
            for obj in lines:
                f.write(json.dumps(obj, ensure_ascii=False) + "\n")
        r = self._run(["recall", "--data", self.data, "--batch", path, "--limit", str(limit)], timeout=RECALL_TIMEOUT)
        answers = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
        if r.returncode not in (0, 2) or len(answers) != len(lines):
            raise NodeError(f"vasana recall --batch {path} ended with {r.returncode} and {len(answers)} answer lines "
                            f"for {len(lines)} queries: {r.stderr.strip()[-2000:]}")
        return answers

    def cli(self, args, timeout=CLI_TIMEOUT):
        """Runs `vasana CMD --data DIR --json REST...` for args = [CMD, REST...] and returns its
        standard output parsed as JSON. Raises CommandError (exit code and stderr) when the
        command ends with a nonzero exit code. Put `--` before a positional text that may begin
        with `--`."""
        r = self._run([args[0], "--data", self.data, "--json"] + list(args[1:]), timeout=timeout)
        if r.returncode != 0:
            raise CommandError(args, r.returncode, r.stderr.strip()[-2000:])
        try:
            return json.loads(r.stdout)
        except json.JSONDecodeError as e:
            raise NodeError(f"vasana {args[0]}: its output is not JSON ({e}): {r.stdout[:200]!r}") from None
