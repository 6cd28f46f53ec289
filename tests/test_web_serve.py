"""`battlelog serve` as a user runs it: it prints its address, serves, stops cleanly on Ctrl-C, and a
port in use (or a bad option) is one line."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from battlelog.commands.serve import exposure_warning

from runs import one_line_error


def test_it_serves_and_stops_cleanly_on_ctrl_c() -> None:
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:  # as a terminal would, however pytest was started
        signal.signal(signal.SIGINT, signal.default_int_handler)
    argv = [sys.executable, "-m", "battlelog.cli", "serve", "--port", "0"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("battlelog: serving on http://127.0.0.1:") and "Ctrl-C" in line, line
        url = line.split()[3]
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}api/options", timeout=5) as answer:
                    assert "problog" in json.load(answer)["players"]
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert out.strip() == "battlelog: server stopped", out
    assert "Traceback" not in err, err


def test_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one_line_error(capsys, ["serve", "--port", str(port)], f"cannot listen on 127.0.0.1 port {port}")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["serve", "--port", "70000"], "not a port number"),
        (["serve", "--results", "/nonexistent-folder"], "not a folder"),
        (["serve", "--workers", "0"], "at least 1"),
        (["serve", "--book", "-1"], "--book must be"),
        (["serve", "--host", "no-such-host.invalid"], "cannot resolve"),
    ],
)
def test_bad_options_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    one_line_error(capsys, argv, words)


def test_only_a_host_other_machines_reach_is_warned_about() -> None:
    assert exposure_warning("127.0.0.1", "127.0.0.1") is None
    assert exposure_warning("localhost", "::1") is None
    assert "other machines" in (exposure_warning("0.0.0.0", "0.0.0.0") or "")
    assert "other machines" in (exposure_warning("myhost", "192.168.1.5") or "")
