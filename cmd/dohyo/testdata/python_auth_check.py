"""Real-client check of dohyo serve's SASL PLAIN authentication with the
DataStax Python driver's PlainTextAuthProvider.

Usage: python_auth_check.py HOST PORT USER PASSWORD
Connects with the right password (must work), then with a wrong one and
with an unknown user (must fail with dohyo's AuthenticationError text).
Exits non-zero with a message on the first failed expectation.
"""
import sys

from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT, NoHostAvailable
from cassandra.policies import RoundRobinPolicy

HOST, PORT, USER, PASSWORD = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]


def connect(user, password):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=120)
    cluster = Cluster([HOST], port=PORT, execution_profiles={EXEC_PROFILE_DEFAULT: profile},
                      auth_provider=PlainTextAuthProvider(username=user, password=password),
                      connect_timeout=20, protocol_version=4)
    return cluster, cluster.connect()


cluster, s = connect(USER, PASSWORD)
row = s.execute("SELECT release_version FROM system.local").one()
if "dohyo" not in row.release_version:
    raise SystemExit("FAIL: release_version %r" % row.release_version)
cluster.shutdown()

for user, password in ((USER, PASSWORD + "-wrong"), ("nobody", PASSWORD)):
    try:
        cluster, s = connect(user, password)
    except NoHostAvailable as e:
        text = " ".join(str(err) for err in e.errors.values())
        want = "Provided username %s and/or password are incorrect" % user
        if want not in text:
            raise SystemExit("FAIL: %s: error %r lacks %r" % (user, text, want))
        if "AuthenticationFailed" not in text and "Bad credentials" not in text:
            raise SystemExit("FAIL: %s: not an authentication failure: %r" % (user, text))
    else:
        cluster.shutdown()
        raise SystemExit("FAIL: %s with a bad password connected" % user)
print("OK")
