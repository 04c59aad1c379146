"""Client warnings through `dohyo serve` with the DataStax Python driver:
the warnings Cassandra 5.0.9 sends (protocol v4 and v5 WARNING flag) for
aggregation over several partitions, an unlogged protocol BATCH over many
partitions and a large batch reach ResponseFuture.warnings; statements
without one carry none.

Usage: python_warnings_check.py HOST PORT UNLOGGED_THRESHOLD
UNLOGGED_THRESHOLD is the server's unlogged batch partition threshold
(Cassandra's default is 10).
Exits non-zero with a message on the first failed expectation.
"""
import sys

from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement, BatchType

HOST, PORT, UNLOGGED = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def expect(cond, msg):
    if not cond:
        raise SystemExit("FAIL: " + msg)


def warnings_of(session, stmt, params=None):
    fut = session.execute_async(stmt, params)
    fut.result()
    return fut.warnings


for proto in (4, 5):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=20)
    cluster = Cluster([HOST], port=PORT, protocol_version=proto,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile}, connect_timeout=20)
    s = cluster.connect()
    ks = "pywarn%d" % proto
    s.execute("DROP KEYSPACE IF EXISTS %s" % ks)
    s.execute("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
    s.set_keyspace(ks)
    s.execute("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
    s.execute("INSERT INTO t (k, c, v) VALUES (1, 1, 1)")

    w = warnings_of(s, "SELECT count(*) FROM t")
    expect(w == ["Aggregation query used without partition key"], "v%d count(*): %r" % (proto, w))
    w = warnings_of(s, "SELECT count(*) FROM t WHERE k = 1")
    expect(w is None, "v%d count(*) of a partition: %r" % (proto, w))
    sel = s.prepare("SELECT count(*) FROM t WHERE k IN ?")
    w = warnings_of(s, sel, ([1, 2],))
    expect(w == ["Aggregation query used on multiple partition keys (IN restriction)"], "v%d prepared IN: %r" % (proto, w))

    ins = s.prepare("INSERT INTO t (k, c, v) VALUES (?, ?, ?)")
    for n, want in ((UNLOGGED, None), (UNLOGGED + 1, [
            "Unlogged batch covering %d partitions detected against table [%s.t]. You should use a logged batch "
            "for atomicity, or asynchronous writes for performance." % (UNLOGGED + 1, ks)])):
        b = BatchStatement(batch_type=BatchType.UNLOGGED)
        for k in range(n):
            b.add(ins, (k, 1, 1))
        w = warnings_of(s, b)
        expect(w == want, "v%d unlogged batch of %d partitions: %r" % (proto, n, w))

    # Two partitions: 2 * 29 + 112 rows of 49 bytes = 5546 bytes.
    b = BatchStatement(batch_type=BatchType.LOGGED)
    for k in range(2):
        b.add(ins, (k, 2, 1))
    for c in range(110):
        b.add(ins, (0, 10 + c, 2))
    w = warnings_of(s, b)
    expect(w == ["Batch for [%s.t] is of size 5546, exceeding specified threshold of 5120 by 426." % ks],
           "v%d large batch: %r" % (proto, w))
    s.execute("DROP KEYSPACE %s" % ks)
    cluster.shutdown()

print("OK")
