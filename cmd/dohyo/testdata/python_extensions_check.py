"""Table extensions through `dohyo serve` with the DataStax Python driver,
as its tests attach them: UPDATE system_schema.tables SET extensions = ?
(accepted by Cassandra 5.0), then the driver's table metadata, refreshed,
shows them.

Usage: python_extensions_check.py HOST PORT
Exits non-zero with a message on the first failed expectation.
"""
import sys

from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy

HOST, PORT = sys.argv[1], int(sys.argv[2])


def expect(cond, msg):
    if not cond:
        raise SystemExit("FAIL: " + msg)


profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=60)
cluster = Cluster([HOST], port=PORT, protocol_version=4,
                  execution_profiles={EXEC_PROFILE_DEFAULT: profile}, connect_timeout=20)
s = cluster.connect()
ks = "pyext"
s.execute("DROP KEYSPACE IF EXISTS %s" % ks)
s.execute("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
s.execute("CREATE TABLE %s.t (k int PRIMARY KEY, v int)" % ks)
upd = s.prepare("UPDATE system_schema.tables SET extensions = ? WHERE keyspace_name = ? AND table_name = ?")
s.execute(upd, ({"dohyo": b"\x01\x02"}, ks, "t"))
row = s.execute("SELECT extensions FROM system_schema.tables WHERE keyspace_name = %s AND table_name = 't'", (ks,)).one()
expect(dict(row.extensions or {}) == {"dohyo": b"\x01\x02"}, "system_schema extensions %r" % (row.extensions,))
cluster.refresh_table_metadata(ks, "t")
ext = cluster.metadata.keyspaces[ks].tables["t"].extensions
expect(dict(ext or {}) == {"dohyo": b"\x01\x02"}, "table metadata extensions %r" % (ext,))
s.execute("DROP KEYSPACE %s" % ks)
cluster.shutdown()
print("OK")
