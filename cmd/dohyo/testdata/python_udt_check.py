"""UDT and schema-change check of `dohyo serve` with the DataStax Python driver.

Usage: python_udt_check.py HOST PORT
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
    ks = "pyudt%d" % proto
    s.execute("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
    s.set_keyspace(ks)
    s.execute("CREATE TYPE addr (street text, zip int)")
    s.execute("CREATE TABLE t (k int PRIMARY KEY, a addr, f frozen<addr>, l list<frozen<addr>>)")
    s.execute("INSERT INTO t (k, a, f, l) VALUES (1, {street: 'main', zip: 1}, {street: 'side'}, [{zip: 3}])")
    s.execute("UPDATE t SET a.zip = %s WHERE k = %s", (9, 1))

    row = s.execute("SELECT a, f, l, a.street FROM t WHERE k = 1").one()
    expect(row.a.street == "main" and row.a.zip == 9, "a decoded as %r" % (row.a,))
    expect(row.f.street == "side" and row.f.zip is None, "f decoded as %r" % (row.f,))
    expect(len(row.l) == 1 and row.l[0].zip == 3 and row.l[0].street is None, "l decoded as %r" % (row.l,))
    expect(row[3] == "main", "a.street selected as %r" % (row[3],))

    # The driver's schema metadata reads system_schema.types.
    cluster.refresh_schema_metadata()
    ut = cluster.metadata.keyspaces[ks].user_types.get("addr")
    expect(ut is not None and list(ut.field_names) == ["street", "zip"], "user type metadata %r" % (ut,))

    # A statement prepared before ALTER TABLE returns the new column after it.
    ps = s.prepare("SELECT * FROM t WHERE k = ?")
    expect(len(s.execute(ps, (1,)).one()) == 4, "columns before ALTER")
    s.execute("ALTER TABLE t ADD v int")
    s.execute("UPDATE t SET v = 7 WHERE k = 1")
    row = s.execute(ps, (1,)).one()
    expect(len(row) == 5 and row.v == 7, "after ALTER TABLE ADD the prepared SELECT returned %r" % (row,))
    s.execute("DROP KEYSPACE " + ks)
    cluster.shutdown()

print("OK")
