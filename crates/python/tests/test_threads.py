"""One Capper per thread, all at once."""

import threading

import capout
from conftest import oracle

DATA = b"".join(b"line %d \xe2\x82\xac\n" % i for i in range(20000))
OPTIONS = [{"tail_chars": 300}, {"head_lines": 7}, {"tail_lines": 5}, {"max_matches": 4, "pattern": "9$"}]


def test_cappers_in_threads_give_the_clis_output():
    from conftest import words

    want = [oracle(words(o), DATA)[0] for o in OPTIONS]
    results = {}
    barrier = threading.Barrier(8)

    def work(n):
        options = OPTIONS[n % len(OPTIONS)]
        capper = capout.Capper(**options)
        barrier.wait(timeout=60)
        out = []
        for at in range(0, len(DATA), 4093):
            out.append(capper.push(DATA[at : at + 4093]))
        out.append(capper.finish()[0])
        results[n] = b"".join(out)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(results) == list(range(8))
    for n, got in results.items():
        assert got == want[n % len(OPTIONS)], n


def test_one_capper_shared_by_threads_stays_whole():
    # Pushes from many threads are serialised by the capper's lock: the
    # total is every byte pushed.
    capper = capout.Capper(tail_chars=10)
    chunk = b"abcdefgh\n" * 100

    def work():
        for _ in range(200):
            capper.push(chunk)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    _, summary = capper.finish()
    assert summary.total_bytes == 4 * 200 * len(chunk)
