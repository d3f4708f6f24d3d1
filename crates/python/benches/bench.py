"""The module's benchmarks (figures, not tests): push throughput against
the Rust library, cap() of 1 KiB, and run(["seq", "100000"]) against
subprocess.run and slicing. Run by benches/bench.sh."""

import subprocess
import time

import capout


def best(f, runs=5):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        f()
        times.append(time.perf_counter() - started)
    return min(times)


line = "2024-01-01 12:00:00 INFO a line of ordinary log output, € 42\n".encode()
data = (line * ((64 << 20) // len(line) + 1))[: 64 << 20]
chunks = [data[i : i + (64 << 10)] for i in range(0, len(data), 64 << 10)]


def push():
    capper = capout.Capper()
    for chunk in chunks:
        capper.push(chunk)
    capper.finish()


t = best(push)
print(f"python push: {64 / t:.0f} MiB/s ({t * 1e3:.1f} ms for 64 MiB)")

kib = (line * 20)[:1024]
n = 20000
t = best(lambda: [capout.cap(kib) for _ in range(n)])
print(f"cap() of 1 KiB: {t / n * 1e6:.2f} us/call")
t = best(lambda: [capout.cap(kib, head_lines=5) for _ in range(n)])
print(f"cap() of 1 KiB, head_lines=5: {t / n * 1e6:.2f} us/call")


def sliced():
    out = subprocess.run(["seq", "100000"], capture_output=True).stdout.decode()
    return out[-5000:]


n = 50
t = best(lambda: [capout.run(["seq", "100000"]) for _ in range(n)])
print(f'capout.run(["seq", "100000"]): {t / n * 1e3:.2f} ms/call')
t = best(lambda: [sliced() for _ in range(n)])
print(f"subprocess.run + [-5000:]: {t / n * 1e3:.2f} ms/call")
