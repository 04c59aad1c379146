"""Real-client check of dohyo's roles and permissions with the DataStax
Python driver.

Usage:
  python_roles_check.py setup HOST PORT ADMIN ADMINPW KS
      as ADMIN: creates KS.t and the login role app; checks that app is
      refused SELECT, MODIFY, DROP and CREATE until granted, and allowed
      once granted (simple, prepared and batch statements), LIST ROLES and
      LIST PERMISSIONS.
  python_roles_check.py shared HOST PORT HOST2 PORT2 ADMIN ADMINPW KS
      app logs in on the second dohyo (same store) and may SELECT; a REVOKE
      on the first is seen by the second within a deadline.
  python_roles_check.py login HOST PORT KS
      app logs in (its role survived a restart) and may SELECT.
Exits non-zero with a message on the first failed expectation; prints OK.
"""
import sys
import time

from cassandra import Unauthorized
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement, SimpleStatement

APP, APPPW = "app", "app-pw"


def connect(host, port, user, password):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=120)
    cluster = Cluster([host], port=int(port), execution_profiles={EXEC_PROFILE_DEFAULT: profile},
                      auth_provider=PlainTextAuthProvider(username=user, password=password),
                      connect_timeout=20, protocol_version=4)
    return cluster, cluster.connect()


def refused(session, query, perm, resource, user=APP):
    want = "User %s has no %s permission on %s or any of its parents" % (user, perm, resource)
    try:
        if isinstance(query, str):
            session.execute(query)
        else:
            query()
    except Unauthorized as e:
        if want not in str(e):
            raise SystemExit("FAIL: %r: Unauthorized %r lacks %r" % (query, str(e), want))
        return
    raise SystemExit("FAIL: %r was allowed, want refused (%s)" % (query, want))


def setup(host, port, admin, adminpw, ks):
    ac, a = connect(host, port, admin, adminpw)
    a.execute("DROP ROLE IF EXISTS %s" % APP)
    a.execute("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = "
              "{'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
    a.execute("CREATE TABLE IF NOT EXISTS %s.t (k int PRIMARY KEY, v text)" % ks)
    a.execute("INSERT INTO %s.t (k, v) VALUES (1, 'one')" % ks)
    a.execute("CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = false" % (APP, APPPW))
    a.execute("CREATE ROLE IF NOT EXISTS %s" % APP)  # a no-op, not an error

    cc, c = connect(host, port, APP, APPPW)
    table = "<table %s.t>" % ks
    refused(c, "SELECT v FROM %s.t WHERE k = 1" % ks, "SELECT", table)
    refused(c, "INSERT INTO %s.t (k, v) VALUES (2, 'two')" % ks, "MODIFY", table)
    refused(c, "DROP TABLE %s.t" % ks, "DROP", table)
    refused(c, "CREATE TABLE %s.mine (k int PRIMARY KEY)" % ks, "CREATE", "<keyspace %s>" % ks)
    refused(c, lambda: c.prepare("SELECT v FROM %s.t WHERE k = ?" % ks), "SELECT", table)
    c.execute("SELECT release_version FROM system.local")  # always readable
    c.execute("SELECT keyspace_name FROM system_schema.keyspaces")
    refused(c, "SELECT role FROM system_auth.roles", "SELECT", "<table system_auth.roles>")

    a.execute("GRANT SELECT ON KEYSPACE %s TO %s" % (ks, APP))
    row = c.execute("SELECT v FROM %s.t WHERE k = 1" % ks).one()
    if row is None or row.v != "one":
        raise SystemExit("FAIL: SELECT after GRANT SELECT: %r" % (row,))
    ps = c.prepare("SELECT v FROM %s.t WHERE k = ?" % ks)
    if c.execute(ps, [1]).one().v != "one":
        raise SystemExit("FAIL: prepared SELECT after GRANT")
    refused(c, "INSERT INTO %s.t (k, v) VALUES (2, 'two')" % ks, "MODIFY", table)
    batch = BatchStatement()
    batch.add(SimpleStatement("INSERT INTO %s.t (k, v) VALUES (3, 'three')" % ks))
    refused(c, lambda: c.execute(batch), "MODIFY", table)

    a.execute("GRANT MODIFY ON TABLE %s.t TO %s" % (ks, APP))
    c.execute("INSERT INTO %s.t (k, v) VALUES (2, 'two')" % ks)
    c.execute(batch)
    ins = c.prepare("INSERT INTO %s.t (k, v) VALUES (?, ?)" % ks)
    c.execute(ins, [4, "four"])
    n = c.execute("SELECT count(*) FROM %s.t" % ks).one()[0]
    if n != 4:
        raise SystemExit("FAIL: %d rows after the granted writes, want 4" % n)
    refused(c, "DROP TABLE %s.t" % ks, "DROP", table)

    # The creator of a table gets every permission on it.
    a.execute("GRANT CREATE ON KEYSPACE %s TO %s" % (ks, APP))
    c.execute("CREATE TABLE %s.mine (k int PRIMARY KEY, v int)" % ks)
    c.execute("INSERT INTO %s.mine (k, v) VALUES (1, 1)" % ks)
    c.execute("DROP TABLE %s.mine" % ks)

    rs = a.execute("LIST ROLES")
    if rs.column_names != ["role", "super", "login", "options", "datacenters"]:
        raise SystemExit("FAIL: LIST ROLES columns %r" % rs.column_names)
    roles = {r.role: r for r in rs}
    if admin not in roles or not roles[admin].super or APP not in roles:
        raise SystemExit("FAIL: LIST ROLES rows %r" % list(roles.values()))
    if roles[APP].super or not roles[APP].login or roles[APP].datacenters != "ALL":
        raise SystemExit("FAIL: LIST ROLES row of app %r" % (roles[APP],))
    perms = sorted((r.role, r.resource, r.permission) for r in c.execute("LIST ALL PERMISSIONS OF %s" % APP))
    want = sorted([(APP, "<keyspace %s>" % ks, "SELECT"), (APP, "<table %s.t>" % ks, "MODIFY"),
                   (APP, "<keyspace %s>" % ks, "CREATE")])
    if perms != want:
        raise SystemExit("FAIL: LIST ALL PERMISSIONS OF app: %r, want %r" % (perms, want))
    vroles = {r.role: r.can_login for r in a.execute("SELECT role, can_login FROM system_auth.roles")}
    if vroles.get(APP) is not True or admin not in vroles:
        raise SystemExit("FAIL: system_auth.roles as a superuser: %r" % vroles)
    vperms = {(r.role, r.resource): sorted(r.permissions) for r in
              a.execute("SELECT role, resource, permissions FROM system_auth.role_permissions")}
    if vperms.get((APP, "data/%s/t" % ks)) != ["MODIFY"]:
        raise SystemExit("FAIL: system_auth.role_permissions: %r" % vperms)
    try:
        c.execute("LIST ALL PERMISSIONS")
    except Unauthorized as e:
        if "You are not authorized to view everyone's permissions" not in str(e):
            raise SystemExit("FAIL: LIST ALL as app: %r" % str(e))
    else:
        raise SystemExit("FAIL: app listed everyone's permissions")
    cc.shutdown()
    ac.shutdown()


def shared(host, port, host2, port2, admin, adminpw, ks):
    cc, c = connect(host2, port2, APP, APPPW)  # app was created through the first dohyo
    if c.execute("SELECT v FROM %s.t WHERE k = 1" % ks).one().v != "one":
        raise SystemExit("FAIL: SELECT on the second dohyo")
    ac, a = connect(host, port, admin, adminpw)
    a.execute("REVOKE SELECT ON KEYSPACE %s FROM %s" % (ks, APP))
    deadline = time.time() + 15
    while True:
        try:
            c.execute("SELECT v FROM %s.t WHERE k = 1" % ks)
        except Unauthorized:
            break
        if time.time() > deadline:
            raise SystemExit("FAIL: the second dohyo still allows SELECT 15 s after the REVOKE")
        time.sleep(0.2)
    cc.shutdown()
    ac.shutdown()


def login(host, port, ks):
    cc, c = connect(host, port, APP, APPPW)
    if c.execute("SELECT v FROM %s.t WHERE k = 1" % ks).one().v != "one":
        raise SystemExit("FAIL: SELECT after the restart")
    refused(c, "DROP TABLE %s.t" % ks, "DROP", "<table %s.t>" % ks)
    cc.shutdown()


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"setup": setup, "shared": shared, "login": login}[cmd](*args)
    print("OK")
