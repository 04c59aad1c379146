// Package readme holds the test that keeps README.md honest: it extracts
// the README's marked shell blocks (an HTML comment `<!-- readme-test: NAME
// -->` right before a fenced block) and runs them as a new user would, in a
// copy of the repository, on free ports, with the real cqlsh from the test
// venv and the real Cassandra and HBase of scripts/with-backends.sh.
//
// The blocks are run as written except for these substitutions, each of
// which must still match the README (so the README cannot drift away from
// what is run):
//   - the documented ports (9042, 8080, 2181) become free ports or the test
//     servers' (DOHYO_TEST_CASSANDRA, DOHYO_TEST_HBASE_ZK);
//     `./dohyo serve` without flags gets its ports from DOHYO_CQL_ADDR and
//     DOHYO_HTTP_ADDR, the environment variables of its flags;
//   - it/.cache/venv/bin/cqlsh becomes DOHYO_TEST_CQLSH (whose venv
//     it/python/setup.sh is pointed at with DOHYO_IT_VENV);
//   - the walkthrough's keyspaces get a unique suffix;
//   - in the production walkthrough (prod_test.go) the test Cassandra is
//     the production node: `nodetool` is it/cassandra/run.sh's (over
//     DOHYO_TEST_CASSANDRA_JMX), /var/lib/cassandra/fql a temporary
//     directory, `sudo tcpdump` tcpdump (the test runs as root), port 9042
//     the test Cassandra's, `cqlsh` DOHYO_TEST_CQLSH with its address,
//     keyspace shop a unique one, and each replay gets an HBase catalog
//     of its own (the replay block runs twice: from the log, from
//     tcpdump's file).
//
// "Ctrl-C in terminal 1" is SIGINT to the server block's process group, as
// a terminal sends it.
package readme
