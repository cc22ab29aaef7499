"""The GIL is released during run: four Python threads share one session, 50 runs each, each
run's outputs equal to the same inputs' outputs run alone."""
import threading
import time

import numpy

import nxrt
from conftest import real_inputs, real_model


def test_four_threads_fifty_runs_each():
    session = nxrt.InferenceSession(real_model("silero_vad_v5"))
    feeds = [real_inputs("silero_vad_v5", seed) for seed in range(8)]
    want = [session.run(None, f) for f in feeds]
    failures = []
    barrier = threading.Barrier(4)

    def worker(index):
        barrier.wait()
        for i in range(50):
            k = (index * 50 + i) % len(feeds)
            got = session.run(None, feeds[k])
            for g, w in zip(got, want[k]):
                if not numpy.array_equal(g, w):
                    failures.append((index, i))
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_runs_overlap_while_python_waits():
    """Another Python thread makes progress while a run is inside nxrt."""
    session = nxrt.InferenceSession(real_model("ppocrv4_det"), providers=["CPUExecutionProvider"])
    feeds = real_inputs("ppocrv4_det")
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)
    t = threading.Thread(target=ticker)
    t.start()
    start = time.perf_counter()
    session.run(None, feeds)
    end = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    assert len(during) >= 3, (len(during), end - start)
