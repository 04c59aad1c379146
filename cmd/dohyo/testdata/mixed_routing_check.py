"""One DataStax Python driver session through dohyo, switching between a
keyspace relayed to Cassandra and one served from HBase (or embedded).

Usage: mixed_routing_check.py HOST PORT CASSANDRA_KS OTHER_KS
Prints OK; exits non-zero with a message on the first failed expectation.
"""
import sys

from cassandra import InvalidRequest
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement

HOST, PORT, CKS, OKS = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]


def expect(cond, msg):
    if not cond:
        raise SystemExit("FAIL: " + msg)


profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=120)
for version in (4, 5):
    cluster = Cluster([HOST], port=PORT, protocol_version=version,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile}, connect_timeout=30)
    s = cluster.connect()
    # Both keyspaces appear in the one catalog the driver sees.
    expect(CKS in cluster.metadata.keyspaces, "v%d: driver metadata lacks %s" % (version, CKS))
    expect(OKS in cluster.metadata.keyspaces, "v%d: driver metadata lacks %s" % (version, OKS))
    prepared = {}
    for ks in (CKS, OKS):
        s.set_keyspace(ks)  # USE, then unqualified statements
        s.execute("INSERT INTO kv (k, v) VALUES (%s, %s)", (version, "plain-" + ks))
        row = s.execute("SELECT v FROM kv WHERE k = %s", (version,)).one()
        expect(row is not None and row.v == "plain-" + ks, "v%d %s: read %r" % (version, ks, row))
        prepared[ks] = (s.prepare("INSERT INTO kv (k, v) VALUES (?, ?)"),
                        s.prepare("SELECT v FROM kv WHERE k = ?"))
    # Prepared statements of both keyspaces, alternating, after the last USE.
    for i in range(10):
        for ks in (CKS, OKS):
            ins, sel = prepared[ks]
            s.execute(ins, (100 + i, "%s-%d" % (ks, i)))
            row = s.execute(sel, (100 + i,)).one()
            expect(row is not None and row.v == "%s-%d" % (ks, i), "v%d prepared %s: %r" % (version, ks, row))
    # A batch may not span the two backends.
    b = BatchStatement()
    b.add("INSERT INTO %s.kv (k, v) VALUES (1, 'x')" % CKS)
    b.add("INSERT INTO %s.kv (k, v) VALUES (1, 'x')" % OKS)
    try:
        s.execute(b)
        raise SystemExit("FAIL: v%d: batch spanning backends accepted" % version)
    except InvalidRequest as e:
        expect("spanning" in str(e), "v%d: batch error %s" % (version, e))
    # Batches within one backend work on both.
    for ks in (CKS, OKS):
        b = BatchStatement()
        b.add(prepared[ks][0], (200, "batched"))
        b.add("INSERT INTO %s.kv (k, v) VALUES (201, 'batched')" % ks)
        s.execute(b)
        n = s.execute("SELECT COUNT(*) FROM %s.kv WHERE k IN (200, 201)" % ks).one()[0]
        expect(n == 2, "v%d batch on %s: count %d" % (version, ks, n))
    cluster.shutdown()
print("OK")
