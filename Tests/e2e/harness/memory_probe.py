"""Samples a process's resident memory (VmRSS in /proc/PID/status) in the background."""

import threading
import time

SAMPLE_INTERVAL_SECONDS = 0.05
KIB = 1024


def resident_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * KIB
    raise RuntimeError(f"no VmRSS for pid {pid}")


class MemoryProbe:
    def __init__(self, pid: int):
        self.pid = pid
        self.baseline = resident_bytes(pid)
        self.peak = self.baseline
        self.samples = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="memory-probe", daemon=True)

    def __enter__(self) -> "MemoryProbe":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()
        self._thread.join(timeout=2)

    @property
    def growth(self) -> int:
        return self.peak - self.baseline

    def _sample(self) -> None:
        while not self._stopping.is_set():
            try:
                self.peak = max(self.peak, resident_bytes(self.pid))
                self.samples += 1
            except (OSError, RuntimeError):
                return
            time.sleep(SAMPLE_INTERVAL_SECONDS)
