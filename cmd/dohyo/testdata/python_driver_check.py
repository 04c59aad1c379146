"""Real-client check of `dohyo serve` with the DataStax Python driver.

Usage: python_driver_check.py HOST PORT
Exits non-zero with a message on the first failed expectation.
"""
import datetime
import decimal
import ipaddress
import sys
import uuid

from cassandra import AlreadyExists, InvalidRequest
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy
from cassandra.protocol import SyntaxException
from cassandra.query import BatchStatement, BatchType, SimpleStatement
from cassandra.util import Duration

HOST, PORT = sys.argv[1], int(sys.argv[2])


def expect(cond, msg):
    if not cond:
        raise SystemExit("FAIL: " + msg)


def connect(**kw):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=120)
    cluster = Cluster([HOST], port=PORT, execution_profiles={EXEC_PROFILE_DEFAULT: profile},
                      connect_timeout=20, **kw)
    return cluster, cluster.connect()


# Default negotiation: the driver starts at its newest version (DSE v2 / 66)
# and must step down to v5 on dohyo's ProtocolError.
cluster, s = connect()
expect(cluster.protocol_version == 5, "negotiated protocol %s, want 5" % cluster.protocol_version)
s.execute("CREATE KEYSPACE py WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
s.set_keyspace("py")
expect("py" in cluster.metadata.keyspaces, "driver metadata lacks keyspace py")
cluster.shutdown()

for version in (3, 4, 5):
    for compression in (False, "lz4", "snappy"):
        if version == 5 and compression == "snappy":
            continue  # v5 compresses segments with lz4 only
        try:
            cluster, s = connect(protocol_version=version, compression=compression)
        except Exception as e:  # noqa: BLE001 - report which combination failed
            raise SystemExit("FAIL: connect v%d compression=%s: %r" % (version, compression, e))
        t = "kv_v%d_%s" % (version, compression or "none")
        s.execute("CREATE TABLE py.%s (k int PRIMARY KEY, v text)" % t)
        s.execute("INSERT INTO py.%s (k, v) VALUES (%%s, %%s)" % t, (1, "x" * 5000))
        row = s.execute("SELECT v FROM py.%s WHERE k = 1" % t).one()
        expect(row.v == "x" * 5000, "v%d/%s round trip" % (version, compression))
        cluster.shutdown()

cluster, s = connect(protocol_version=4)
s.set_keyspace("py")
s.execute("""CREATE TABLE types (k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, d date,
    de decimal, do double, du duration, f float, i inet, s smallint, t text, ti time, ts timestamp,
    tu timeuuid, tiny tinyint, u uuid, vi varint, l list<int>, st set<text>, m map<text, int>,
    tup tuple<int, text>)""")
values = {
    "k": 1, "a": "ascii", "b": -2**63, "bl": b"\x00\x01\xff", "bo": True,
    "d": datetime.date(1969, 7, 20), "de": decimal.Decimal("-3.1415"), "do": 2.5,
    "du": Duration(1, 2, 3), "f": 1.5, "i": "192.168.0.1", "s": -32768, "t": "héllo ✓",
    "ti": datetime.time(13, 0, 0, 5), "ts": datetime.datetime(2024, 2, 29, 12, 34, 56, 789000),
    "tu": uuid.uuid1(), "tiny": -128, "u": uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
    "vi": -123456789012345678901234567890, "l": [3, 1, 3], "st": {"b", "a"}, "m": {"x": 1, "y": 2},
    "tup": (7, "seven"),
}
cols = list(values)
insert = "INSERT INTO types (%s) VALUES (%s)" % (", ".join(cols), ", ".join("?" * len(cols)))
s.execute(s.prepare(insert), [values[c] for c in cols])
# Simple statements: the driver renders values as CQL literals itself. It
# renders Python tuples as lists, so the tuple column is bound separately.
lit_cols = [c for c in cols if c != "tup"]
unprepared = "INSERT INTO types (%s) VALUES (%s)" % (", ".join(lit_cols), ", ".join(["%s"] * len(lit_cols)))
values2 = dict(values, k=2)
s.execute(unprepared, [values2[c] for c in lit_cols])
s.execute("UPDATE types SET tup = (7, 'seven') WHERE k = 2")
for k in (1, 2):
    row = s.execute("SELECT * FROM types WHERE k = %s", (k,)).one()._asdict()
    for c in cols[1:]:
        got, want = row[c], values[c]
        if c == "st":
            got = set(got)
        if c == "m":
            got = dict(got)
        if c == "ti":
            got = datetime.time(got.hour, got.minute, got.second, got.nanosecond // 1000)
        if c == "l":
            got = list(got)
        expect(got == want, "k=%d column %s = %r, want %r" % (k, c, got, want))

# Batches, paging, ordering.
s.execute("CREATE TABLE ev (p int, c int, v text, PRIMARY KEY (p, c))")
ins = s.prepare("INSERT INTO ev (p, c, v) VALUES (?, ?, ?)")
for b in range(100):
    batch = BatchStatement(batch_type=BatchType.UNLOGGED)
    for i in range(100):
        batch.add(ins, (1, b * 100 + i, "v%d" % i))
    s.execute(batch)
rows = list(s.execute(SimpleStatement("SELECT c FROM ev WHERE p = 1", fetch_size=53)))
expect([r.c for r in rows] == list(range(10000)), "paging 10,000 rows in order (got %d)" % len(rows))
got = [r.c for r in s.execute("SELECT c FROM ev WHERE p = 1 AND c > 10 AND c <= 13 ORDER BY c DESC")]
expect(got == [13, 12, 11], "reverse slice %r" % got)
got = [r.c for r in s.execute("SELECT c FROM ev WHERE p = 1 AND c IN (9, 2, 5)")]
expect(got == [2, 5, 9], "IN order %r" % got)

# TTL, timestamps, LWT.
s.execute("INSERT INTO ev (p, c, v) VALUES (2, 1, 'a') USING TIMESTAMP 2000 AND TTL 1000")
row = s.execute("SELECT WRITETIME(v) AS w, TTL(v) AS t FROM ev WHERE p = 2 AND c = 1").one()
expect(row.w == 2000 and 0 < row.t <= 1000, "writetime/ttl %r" % (row,))
r = s.execute("INSERT INTO ev (p, c, v) VALUES (3, 1, 'a') IF NOT EXISTS").one()
expect(r[0] is True, "first LWT applied %r" % (r,))
r = s.execute("INSERT INTO ev (p, c, v) VALUES (3, 1, 'b') IF NOT EXISTS").one()
expect(r[0] is False and r.v == "a", "second LWT %r" % (r,))

# Errors surface as the driver's own exception types.
for stmt, exc in (("SELEC * FROM ev", SyntaxException),
                  ("SELECT nope FROM ev WHERE p = 1", InvalidRequest),
                  ("CREATE TABLE ev (k int PRIMARY KEY)", AlreadyExists)):
    try:
        s.execute(stmt)
    except exc:
        pass
    else:
        raise SystemExit("FAIL: %r did not raise %s" % (stmt, exc.__name__))
cluster.shutdown()
print("OK")
