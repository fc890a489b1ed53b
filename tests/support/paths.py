"""Where things are: the one definition of the checkout's root for the tests."""

from __future__ import annotations

from pathlib import Path

#: the checkout (the folder of ``pyproject.toml``)
ROOT = Path(__file__).resolve().parents[2]
#: the tests folder
TESTS = ROOT / "tests"
