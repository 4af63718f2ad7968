"""The documentation runs: every shell command and every Python block of
README.md and docs/*.md is executed, page by page, in a scratch folder that
holds a copy of ``examples/``.

How a page is run:

- Blocks run in page order in one folder, so a page reads like a session:
  a file written by one block is there for the next.
- A ```sh block runs line by line (``\\`` continues a line; ``#`` lines are
  comments) with the installed ``schedlab`` first on PATH. A command must exit
  0, or the code its comment names: ``# ... (exit 1)``.
- A ```python block runs on its own (a fresh namespace: it imports what it
  uses).
- An HTML comment on the line before a block marks it:
  ``<!-- docs-test: root -->`` needs root (runs as root, as ``make test``
  does on CI; skipped with the reason otherwise), ``<!-- docs-test: long
  REASON -->`` takes minutes (runs with ``SCHEDLAB_DOCS_LONG=1``),
  ``<!-- docs-test: skip REASON -->`` cannot run inside the test suite (e.g.
  ``make test`` itself). Every skip prints its reason. A ``sudo`` command in a
  block that is not marked ``root`` is an error.
- A block whose command fails after one of its real runs (``sudo``
  commands), that one or an earlier one whose trace the failing command
  reads, reported a platform stall (its ``note: N platform stall(s) ...``
  line, the evidence) runs again from its start, up to ``REAL_ATTEMPTS``
  (ten) times in all, as the runtime's own tests do; the evidence of each
  retry is printed. A run that finds another run holding the machine's run
  lock (another test suite's real run) waits for it, up to 10 minutes, and
  says so. Any other failure fails at once.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

#: Attempts of a real run whose every failure comes with a platform stall's evidence.
REAL_ATTEMPTS = 10

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MARK = re.compile(r"<!--\s*docs-test:\s*(root|long|skip)\s*(.*?)\s*-->")
EXIT = re.compile(r"\(exit (\d+)\)")
LOCKED = "holds the run lock"
LOCK_WAIT_S = 600


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    text: str
    mark: str | None
    reason: str


def blocks(page: Path) -> list[Block]:
    out: list[Block] = []
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```(sh|bash|python)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        mark, reason = None, ""
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0 and (mm := MARK.search(lines[k])):
            mark, reason = mm.group(1), mm.group(2)
        lang = "python" if m.group(1) == "python" else "sh"
        out.append(Block(page, start + 1, lang, "\n".join(lines[start + 1 : j]) + "\n", mark, reason))
        i = j + 1
    return out


def commands(text: str) -> list[str]:
    """Shell lines, continuations joined; comments and blank lines dropped."""
    out: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        out.append(current + line)
        current = ""
    if current:
        out.append(current)
    return out


def expected_exit(cmd: str) -> int:
    m = EXIT.search(cmd.split("#", 1)[1]) if "#" in cmd else None
    return int(m.group(1)) if m else 0


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def page_id(p: Path) -> str:
    return str(p.relative_to(REPO))


def run_command(cmd: str, where: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], str | None]:
    """Runs one command of a block; a real run that finds another run
    holding the run lock waits for it. Returns the outcome and, for a real
    run, the platform-stall line it printed, if any."""
    real = cmd.startswith("sudo ")
    run = cmd[len("sudo ") :] if real else cmd
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        p = subprocess.run(["bash", "-c", run], env=env, capture_output=True, text=True, timeout=600, check=False)
        if real and LOCKED in p.stderr and time.monotonic() < deadline:
            print(f"docs: {where}: waiting for the run lock: {p.stderr.strip()}")
            time.sleep(2)
            continue
        if not real:
            return p, None
        return p, next((ln for ln in (p.stdout + p.stderr).splitlines() if "platform stall(s)" in ln), None)


def run_block(b: Block, where: str, env: dict[str, str]) -> None:
    """Runs a ```sh block's commands in order. When one fails and a real run
    of the block (that one, or one before it whose trace it reads) reported
    a platform stall, the stall is the cause: the block runs again from its
    start, up to ``REAL_ATTEMPTS`` times in all, the evidence printed. Any
    other failure fails at once."""
    for attempt in range(1, REAL_ATTEMPTS + 1):
        stall = None
        for cmd in commands(b.text):
            p, s = run_command(cmd, where, env)
            stall = s or stall
            want = expected_exit(cmd)
            if p.returncode == want:
                continue
            if stall is not None and attempt < REAL_ATTEMPTS:
                print(
                    f"docs: {where}: `{cmd}` exited {p.returncode} under a platform stall of the block's real run, "
                    f"the block runs again ({attempt}/{REAL_ATTEMPTS}): {stall}"
                )
                break
            pytest.fail(
                f"{where}: `{cmd}` exited {p.returncode}, the page says {want}\n"
                f"stdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}",
                pytrace=False,
            )
        else:
            return


def test_a_block_runs_again_when_a_stall_of_its_real_run_made_a_later_command_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The "real run" (its `sudo` dropped) reports a stall the first time;
    # the command after it fails then, and passes once the block reruns.
    # A failing real run under a stall reruns the block the same way.
    monkeypatch.chdir(tmp_path)
    text = (
        "sudo test -e ran || echo 'note: 1 platform stall(s) above 1.0 ms'; touch ran\n"
        "test -e second || { touch second; exit 1; }\n"
    )
    run_block(Block(Path("x.md"), 1, "sh", text, "root", ""), "x.md:1", dict(os.environ))
    out = capsys.readouterr().out
    assert "the block runs again (1/10): note: 1 platform stall(s)" in out
    failing_run = "sudo test -e again || { touch again; echo 'note: 1 platform stall(s) above 1.0 ms'; exit 1; }\n"
    run_block(Block(Path("x.md"), 1, "sh", failing_run, "root", ""), "x.md:1", dict(os.environ))
    assert "`sudo test -e again" in capsys.readouterr().out
    # Without a stall the same failure fails at once.
    (tmp_path / "second").unlink()
    with pytest.raises(pytest.fail.Exception, match="exited 1"):
        run_block(Block(Path("x.md"), 1, "sh", text, "root", ""), "x.md:1", dict(os.environ))


def test_every_page_is_found() -> None:
    names = {page_id(p) for p in PAGES}
    assert {"README.md", "docs/cli.md", "docs/python.md"} <= names
    assert sum(len(blocks(p)) for p in PAGES) >= 20


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=page_id)
def test_the_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = blocks(page)
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["SCHEDLAB_REPO"] = str(REPO)
    long_ok = os.environ.get("SCHEDLAB_DOCS_LONG") == "1"
    ran, skipped = 0, []
    for b in found:
        where = f"{page_id(b.page)}:{b.line}"
        if b.lang == "sh" and b.mark != "root" and any(c.startswith("sudo ") for c in commands(b.text)):
            pytest.fail(f"{where}: a block with `sudo` must be marked <!-- docs-test: root -->")
        if b.mark == "skip" or (b.mark == "long" and not long_ok) or (b.mark == "root" and not is_root()):
            why = {"skip": b.reason, "long": f"takes long ({b.reason}); SCHEDLAB_DOCS_LONG=1 runs it"}.get(
                b.mark or "", "needs root"
            )
            skipped.append(f"{where}: {why}")
            continue
        if b.lang == "python":
            deadline = time.monotonic() + LOCK_WAIT_S
            while True:
                try:
                    exec(compile(b.text, where, "exec"), {"__name__": "__docs__"})
                    break
                except Exception as e:  # noqa: BLE001 - the block's own failure is the test's
                    if LOCKED in str(e) and time.monotonic() < deadline:
                        print(f"docs: {where}: waiting for the run lock: {e}")
                        time.sleep(2)
                        continue
                    pytest.fail(f"{where}: the Python block fails: {type(e).__name__}: {e}\n{b.text}", pytrace=False)
        else:
            run_block(b, where, env)
        ran += 1
    for s in skipped:
        print(f"docs: skipped {s}")
    assert ran or skipped
