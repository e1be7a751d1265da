"""`yambak play` and `yambak keep` on a real pseudo-terminal, as a person at a terminal runs them.

A pipe is not a terminal: the full-screen app opens, and the line mode shows its prompt and
Tab completion, only where stdin is a terminal, which is where `yambak play` once crashed.
The app's screen is read back through pyte, a terminal emulator.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte

YAMBAK = str(Path(sys.executable).with_name("yambak"))
PREVIEW = re.compile(r"^  ([^,\r\n]+?) (-?\d+)(?:,|\r?$)", re.MULTILINE)  # the best box: its name, its points
YAMS_BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_kind", "four_kind", "full_house"]
YAMS_BOXES += ["small_straight", "large_straight", "yam", "chance"]
YAMS_NAMES = {b: b.capitalize() for b in YAMS_BOXES[:6]} | {
    "three_kind": "Three of a kind",
    "four_kind": "Four of a kind",
    "full_house": "Full house",
    "small_straight": "Small straight",
    "large_straight": "Large straight",
    "yam": "Yams",
    "chance": "Chance",
}


def spawn(*args: str, **more_env: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    env.pop("NO_COLOR", None)
    env.update(more_env)
    child = pexpect.spawn(YAMBAK, list(args), dimensions=(24, 80), encoding="utf-8", timeout=30, env=env)
    child.delaybeforesend = None  # type without pauses; pexpect waits for each prompt anyway
    return child


def finish(child: pexpect.spawn) -> None:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "internal error" not in (child.before or "") and "Traceback" not in (child.before or "")


def test_play_plain_on_a_terminal_to_the_end() -> None:
    child = spawn("play", "yams", "--players", "Ann", "--seed", "5", "--plain")
    for _ in range(13):
        child.expect_exact("Ann, r to roll> ")
        child.sendline("r")
        child.expect_exact("Ann, roll 2 or a box> ")
        box = PREVIEW.search(child.before)
        assert box is not None, child.before
        child.sendline(box.group(1))
        child.expect_exact(f"Ann: {box.group(1)}, {box.group(2)}")
    child.expect_exact("Game over. Final score: ")  # one player: the end says the score
    finish(child)


def test_keep_plain_on_a_terminal_to_the_end(tmp_path: Path) -> None:
    child = spawn("keep", "yams", "--players", "Ann", "--plain", "--save", str(tmp_path / "g.json"))
    for box in YAMS_BOXES:
        child.expect_exact("Ann, roll 1 dice> ")
        child.sendline("66655")
        child.expect_exact("Ann, roll 2 dice or a box> ")
        if box in ("full_house", "small_straight", "large_straight", "chance"):
            child.sendline(box[:4] + "\t")  # Tab completes a name its start tells apart
        else:
            child.sendline(box)
        child.expect_exact(f"Ann: {YAMS_NAMES[box]}, ")  # the box by its English name
    child.expect_exact("Game over. Final score: ")  # one player: no one to beat
    child.expect_exact("game over> ")
    child.sendline("quit")
    finish(child)


class Screen:
    """The terminal as the app drew it."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait(self, done: Callable[[str], bool], timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                self.stream.feed(self.child.read_nonblocking(65536, timeout=0.05))
            except pexpect.TIMEOUT:
                pass
            if done(self.text()):
                time.sleep(0.1)  # the rest of the frame
                try:
                    self.stream.feed(self.child.read_nonblocking(65536, timeout=0.1))
                except pexpect.TIMEOUT:
                    pass
                return self.text()
        raise AssertionError(f"timed out; the screen:\n{self.text()}")


def test_play_full_screen_on_a_terminal_to_the_end() -> None:
    child = spawn("play", "yams", "--players", "Ann", "--seed", "5")
    screen = Screen(child)
    screen.wait(lambda t: "Your turn: roll the dice." in t and "Ones" in t)
    for n in range(13):  # the cursor waits on the first open box each turn: Enter fills the sheet in order
        child.send("r")
        shown = screen.wait(lambda t: "Roll: 2 left" in t)
        assert "●" in shown  # the dice, drawn with pips
        child.send("\r")
        if n < 12:
            screen.wait(lambda t: "Your turn: roll the dice." in t and "Roll: 2 left" not in t)
    shown = screen.wait(lambda t: "Game over" in t and "Final score: " in t)  # one player: no one beaten
    assert "Review the game" in screen.wait(lambda t: "Review the game" in t, timeout=60)
    child.send("q")
    finish(child)


def test_no_color_is_respected_and_help_does_not_load_the_app() -> None:
    """NO_COLOR: the app draws in shades of grey, no hue (held dice still stand out by their border);
    `yambak --help` does not import Textual."""
    child = spawn("play", "yams", "--players", "Ann", "--seed", "5", NO_COLOR="1")
    screen = Screen(child)
    screen.wait(lambda t: "Your turn: roll the dice." in t)
    child.send("r")
    screen.wait(lambda t: "Roll: 2 left" in t)
    child.send("1")
    shown = screen.wait(lambda t: "held: 1" in t)
    assert "┏" in shown  # the held die's heavy border

    def grey(colour: str) -> bool:  # Textual's monochrome: shades of grey, never a hue
        return colour == "default" or (len(colour) == 6 and colour[0:2] == colour[2:4] == colour[4:6])

    cells = [c for row in screen.screen.buffer.values() for c in row.values()]
    hues = [c for c in cells if not (grey(c.fg) and grey(c.bg))]
    assert cells and not hues, hues[:3]
    child.send("q")
    child.expect(pexpect.EOF)
    probe = "import sys, yambak.cli as c; sys.argv=['yambak','--help']\ntry: c.main()\nexcept SystemExit: pass\n"
    probe += "assert 'textual' not in sys.modules, 'textual loaded by --help'"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0 and "usage: yambak" in out.stdout, out
