"""Protocol v5 traffic for the packet-capture import test: the Python
driver runs a known mix against Cassandra with v5 framing, LZ4-compressed
and not, including an envelope larger than a v5 segment payload.

Usage: pcap_v5_mix.py HOST PORT KEYSPACE
Prints OK; the Go test knows the mix (TestPcapImportCassandraV5).
"""
import sys

from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement, BatchType, SimpleStatement

HOST, PORT, KS = sys.argv[1], int(sys.argv[2]), sys.argv[3]

for compression in (False, "lz4"):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=120)
    cluster = Cluster([HOST], port=PORT, protocol_version=5, compression=compression,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile}, connect_timeout=30)
    s = cluster.connect(KS)
    if cluster.protocol_version != 5:
        raise SystemExit("FAIL: protocol %s, want 5" % cluster.protocol_version)
    ins = s.prepare("INSERT INTO kv (k, v) VALUES (?, ?)")
    for i in range(10):
        s.execute(ins, (i, "v%d" % i))
    # A value larger than a segment payload (128 KiB): split envelopes.
    s.execute(ins, (1000, "x" * 200000))
    sel = s.prepare("SELECT v FROM kv WHERE k = ?")
    for i in range(5):
        rows = list(s.execute(sel, (i,)))
        if len(rows) != 1:
            raise SystemExit("FAIL: %d rows" % len(rows))
    for i in range(3):
        s.execute(SimpleStatement("SELECT k FROM kv WHERE k IN (1, 2, 3)"))
    b = BatchStatement(batch_type=BatchType.LOGGED)
    b.add(SimpleStatement("UPDATE kv SET v = 'b' WHERE k = 1"))
    b.add(ins, (2, "b"))
    s.execute(b)
    s.execute(SimpleStatement("SELECT v FROM kv WHERE k = 999"))
    cluster.shutdown()
print("OK")
