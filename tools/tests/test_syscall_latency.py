"""tools.syscall_latency on a hand-made trace: three 4 KiB reads of 100, 300
and 200 µs on two threads, interleaved, plus calls that must not count (a
512-byte read, a short 4 KiB read, an 8 KiB read that returned 4 KiB, an
exit without an enter)."""

from tools.syscall_latency import durations, nearest_rank

TRACE = """\
 probe loop0 11 [000] 10.000000000: raw_syscalls:sys_enter: NR 17 (7, 55d7ad7a4000, 1000, 1ffdb000, 0, 0)
   fio 12 [001] 10.000050000: raw_syscalls:sys_enter: NR 17 (3, 7fffe8377eb0, 1000, 40, 0, 0)
 probe loop0 11 [000] 10.000100000: raw_syscalls:sys_exit: NR 17 = 4096
 probe loop0 11 [000] 10.000200000: raw_syscalls:sys_enter: NR 17 (5, 7fffe8377eb0, 200, 0, 0, 0)
 probe loop0 11 [000] 10.000210000: raw_syscalls:sys_exit: NR 17 = 512
   fio 12 [001] 10.000350000: raw_syscalls:sys_exit: NR 17 = 4096
 probe loop0 11 [000] 10.001000000: raw_syscalls:sys_enter: NR 17 (7, 55d7ad7a4000, 1000, 2000, 0, 0)
 probe loop0 11 [000] 10.001200000: raw_syscalls:sys_exit: NR 17 = 4096
 probe loop0 11 [000] 10.002000000: raw_syscalls:sys_enter: NR 17 (7, 55d7ad7a4000, 1000, 3000, 0, 0)
 probe loop0 11 [000] 10.002050000: raw_syscalls:sys_exit: NR 17 = 2048
   fio 12 [001] 10.003000000: raw_syscalls:sys_exit: NR 17 = 4096
 probe loop0 11 [000] 10.004000000: raw_syscalls:sys_enter: NR 17 (7, 55d7ad7a4000, 2000, 4000, 0, 0)
 probe loop0 11 [000] 10.004500000: raw_syscalls:sys_exit: NR 17 = 4096
"""


def test_durations_by_thread():
    by_comm = durations(TRACE.splitlines())
    assert sorted(by_comm) == ["fio", "probe loop0"]
    assert [round(x * 1e6, 3) for x in by_comm["fio"]] == [300.0]
    assert sorted(round(x * 1e6, 3) for d in by_comm.values() for x in d) == [100.0, 200.0, 300.0]


def test_nearest_rank():
    got = [100.0, 200.0, 300.0]
    assert nearest_rank(got, 0.5) == 200.0
    assert nearest_rank(got, 0.99) == 300.0
