"""Child processes and waiting: every wait polls a condition up to a deadline, never a fixed sleep."""

import signal
import socket
import subprocess
import time

from diarykit import HOST


def wait_until(condition, seconds, interval=0.01):
    """Polls `condition` until it holds or `seconds` passed: the seconds it took, or None."""
    began = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - began
        if time.monotonic() - began > seconds:
            return None
        time.sleep(interval)


def free_port():
    """A port nothing listens on now (another process may take it before it is used)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, timeout=15):
    """Waits until something accepts connections on `port`; fails when `process` exits first."""
    def listening():
        if process.poll() is not None:
            raise RuntimeError(f"the process for port {port} exited with {process.returncode}")
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return True
        except OSError:
            return False
    if wait_until(listening, timeout, 0.05) is None:
        raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def status_kib(pid, field):
    """A field of /proc/PID/status in KiB (VmRSS: resident now, VmHWM: the peak so far), or
    None when the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Children:
    """Every process started here, each in a session of its own (so that Ctrl-C in the terminal
    reaches the script only, which stops them in order), stopped with TERM then KILL."""

    def __init__(self):
        self.processes = []

    def start(self, command, **options):
        process = subprocess.Popen(command, start_new_session=True, **options)
        self.processes.append(process)
        return process

    def stop(self, process, grace=6):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def stop_all(self):
        for process in reversed(self.processes):
            self.stop(process)

    def exited(self):
        """The first child that is no longer running, or None."""
        return next((process for process in self.processes if process.poll() is not None), None)
