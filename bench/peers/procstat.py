"""Peak memory of the calling process from the kernel's accounting (shared by the Python peers)."""


def vmhwm_kb():
    """VmHWM of /proc/self/status in KiB, or -1 when it cannot be read."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1
