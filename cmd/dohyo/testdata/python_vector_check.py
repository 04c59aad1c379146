"""Vector check of `dohyo serve` with the DataStax Python driver: the
driver must parse the VectorType result metadata, decode and encode vector
values (literal and bound), read system_schema's vector type text, and run
the similarity functions and an ANN query.

Usage: python_vector_check.py HOST PORT
Exits non-zero with a message on the first failed expectation.
"""
import sys

from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy

HOST, PORT = sys.argv[1], int(sys.argv[2])


def expect(cond, msg):
    if not cond:
        raise SystemExit("FAIL: " + msg)


for proto in (4, 5):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=120)
    cluster = Cluster([HOST], port=PORT, protocol_version=proto,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile}, connect_timeout=20)
    s = cluster.connect()
    ks = "pyvec%d" % proto
    s.execute("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
    s.set_keyspace(ks)
    s.execute("CREATE TABLE t (k int PRIMARY KEY, v vector<float, 3>, w vector<text, 2>)")
    s.execute("CREATE INDEX ON t (v) USING 'sai'")
    s.execute("INSERT INTO t (k, v, w) VALUES (1, [1.0, 2.5, 3], ['a', 'bc'])")
    ins = s.prepare("INSERT INTO t (k, v, w) VALUES (?, ?, ?)")
    s.execute(ins, (2, [0.5, -1.0, 2.0], ["x", ""]))

    row = s.execute("SELECT v, w FROM t WHERE k = 1").one()
    expect(list(row.v) == [1.0, 2.5, 3.0], "v decoded as %r" % (row.v,))
    expect(list(row.w) == ["a", "bc"], "w decoded as %r" % (row.w,))
    row = s.execute("SELECT v, w FROM t WHERE k = 2").one()
    expect(list(row.v) == [0.5, -1.0, 2.0] and list(row.w) == ["x", ""], "bound row decoded as %r" % (row,))

    types = {r.column_name: r.type for r in s.execute(
        "SELECT column_name, type FROM system_schema.columns WHERE keyspace_name = %s AND table_name = 't'", (ks,))}
    expect(types.get("v") == "vector<float, 3>" and types.get("w") == "vector<text, 2>", "schema types %r" % (types,))

    row = s.execute("SELECT similarity_cosine(v, [1.0, 2.5, 3]) AS c FROM t WHERE k = 1").one()
    expect(abs(row.c - 1.0) < 1e-6, "similarity_cosine %r" % (row.c,))
    rows = list(s.execute("SELECT k FROM t ORDER BY v ANN OF [0.5, -1, 2] LIMIT 2"))
    expect([r.k for r in rows] == [2, 1], "ANN order %r" % (rows,))
    sel = s.prepare("SELECT k FROM t ORDER BY v ANN OF ? LIMIT 1")
    rows = list(s.execute(sel, ([1.0, 2.5, 3.0],)))
    expect([r.k for r in rows] == [1], "bound ANN %r" % (rows,))
    s.execute("DROP KEYSPACE %s" % ks)
    cluster.shutdown()

print("OK")
