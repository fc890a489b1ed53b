"""A program on a pseudo-terminal, driven as a person would (the REPL, the
progress line of the command line)."""

from __future__ import annotations

import os
import re
import select
import time

from support.paths import ROOT


class Terminal:
    """A child process on a pseudo-terminal, read with a timeout."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        import pty
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the program (never returns)
            os.chdir(ROOT)
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd = pid, fd
        self.buffer = ""

    def read_until(self, marker: str, timeout: float = 60.0, resend: bytes = b"") -> str:
        """Output up to and including ``marker``; ``resend`` is written again every second
        meanwhile (a control key can be lost in a race inside Python's readline, and a
        person would press it again)."""
        deadline = time.monotonic() + timeout
        next_send = time.monotonic() + 1.0
        while marker not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {marker!r}; got {self.buffer!r}")
            if resend and time.monotonic() > next_send:
                os.write(self.fd, resend)
                next_send += 1.0
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"terminal closed before {marker!r}: {self.buffer!r}")
                self.buffer += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        i = self.buffer.index(marker) + len(marker)
        before, self.buffer = self.buffer[:i], self.buffer[i:]
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", before)  # drop terminal control codes

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def close(self, timeout: float = 30.0, resend: bytes = b"") -> int:
        """Wait for the child to exit; ``resend`` is written again every second meanwhile
        (a control character typed while readline switches the terminal mode can be
        dropped by the terminal, as it would be for a person, who would press it again)."""
        deadline = time.monotonic() + timeout
        next_send = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            try:  # drain output so the child never blocks on a full terminal
                if select.select([self.fd], [], [], 0.1)[0]:
                    os.read(self.fd, 4096)
                if resend and time.monotonic() > next_send:
                    os.write(self.fd, resend)
                    next_send += 1.0
            except OSError:
                pass
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        raise AssertionError("the REPL did not exit")


__all__ = ["Terminal"]
