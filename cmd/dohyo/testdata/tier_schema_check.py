"""The DataStax Python driver against a dohyo tier (several instances over
one HBase): it discovers every instance through system.peers, its schema
agreement wait after DDL completes, and each instance serves the new schema.

Usage: tier_schema_check.py HOST PORT KEYSPACE INSTANCES
Exits non-zero with a message on the first failed expectation.
"""
import sys
import time

from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy

HOST, PORT, KS, N = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])


def expect(cond, msg):
    if not cond:
        raise SystemExit("FAIL: " + msg)


profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=120)
cluster = Cluster([HOST], port=PORT, execution_profiles={EXEC_PROFILE_DEFAULT: profile},
                  connect_timeout=20, max_schema_agreement_wait=10)
s = cluster.connect()

# Peers are found by membership a heartbeat or two after start.
deadline = time.time() + 15
while True:
    hosts = [h for h in cluster.metadata.all_hosts() if h.is_up]
    if len(hosts) == N:
        break
    expect(time.time() < deadline, "driver sees %d live hosts, want %d: %s" % (len(hosts), N, hosts))
    time.sleep(0.2)
    cluster.refresh_nodes()

rs = s.execute("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % KS)
expect(rs.response_future.is_schema_agreed, "no schema agreement after CREATE KEYSPACE")
rs = s.execute("CREATE TABLE %s.t (k int PRIMARY KEY, v text)" % KS)
expect(rs.response_future.is_schema_agreed, "no schema agreement after CREATE TABLE")
expect("t" in cluster.metadata.keyspaces[KS].tables, "driver metadata lacks %s.t" % KS)
expect(cluster.control_connection.wait_for_schema_agreement(wait_time=10), "explicit schema agreement wait failed")

for i, h in enumerate(sorted(hosts, key=lambda h: str(h.endpoint))):
    s.execute("INSERT INTO %s.t (k, v) VALUES (%%s, %%s)" % KS, (i, str(h.endpoint)), host=h)
for i, h in enumerate(sorted(hosts, key=lambda h: str(h.endpoint))):
    for j in range(N):
        row = s.execute("SELECT v FROM %s.t WHERE k = %%s" % KS, (j,), host=h).one()
        expect(row is not None, "row %d missing through %s" % (j, h))

rs = s.execute("DROP KEYSPACE %s" % KS)
expect(rs.response_future.is_schema_agreed, "no schema agreement after DROP KEYSPACE")
cluster.shutdown()
print("OK")
