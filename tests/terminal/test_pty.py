"""`yambak play` and `yambak keep` on a real pseudo-terminal, as a person at a terminal runs them.

A pipe is not a terminal: the line mode shows its prompt, Tab completion and (later) the
full-screen app only where stdin is a terminal, which is where `yambak play` once crashed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pexpect

YAMBAK = str(Path(sys.executable).with_name("yambak"))
PREVIEW = re.compile(r"^  (\S+)=(-?\d+)", re.MULTILINE)


def spawn(*args: str) -> pexpect.spawn:
    child = pexpect.spawn(YAMBAK, list(args), dimensions=(24, 80), encoding="utf-8", timeout=30)
    child.delaybeforesend = None  # type without pauses; pexpect waits for each prompt anyway
    return child


def test_play_in_line_mode_on_a_terminal_to_the_end() -> None:
    child = spawn("play", "yams", "--players", "Ann", "--seed", "5")
    for _ in range(13):
        child.expect_exact("Ann, r to roll> ")
        child.sendline("r")
        child.expect_exact("Ann, roll 2 or a box> ")
        box = PREVIEW.search(child.before)
        assert box is not None, child.before
        child.sendline(box.group(1))
        child.expect_exact(f"Ann: {box.group(1)} = {box.group(2)}")
    child.expect("winner: Ann")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "internal error" not in (child.before or "")
