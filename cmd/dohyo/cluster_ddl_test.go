package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// TestRelayClusterDDLAgreement: a table created through dohyo (relayed to
// the 3-node cluster) is usable on every node as soon as the CREATE is
// answered, as it is after a driver connected to the cluster has waited
// for schema agreement: each round creates a table through dohyo and reads
// it at once on a session pinned to each node. dohyo reports every change
// answered after agreement (dohyo_relay_schema_changes_total).
func TestRelayClusterDDLAgreement(t *testing.T) {
	hosts, _ := cassandraCluster(t)
	p := startServe(t, "--backend", "cassandra://"+strings.Join(hosts, ",")+"?connect_timeout=2s")
	through := gocqlSession(t, p.CQLAddr, 4, nil, func(c *gocql.ClusterConfig) { c.Timeout = 30 * time.Second })
	pinned := make([]*gocql.Session, len(hosts))
	for i, h := range hosts {
		host, _, _ := strings.Cut(h, ":")
		pinned[i] = gocqlSession(t, h, 4, nil, func(c *gocql.ClusterConfig) {
			c.Hosts = []string{h}
			c.HostFilter = gocql.WhiteListHostFilter(host)
		})
	}
	mustExec(t, through, "DROP KEYSPACE IF EXISTS clddl")
	mustExec(t, through, "CREATE KEYSPACE clddl WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	const rounds = 8
	for r := range rounds {
		table := fmt.Sprintf("clddl.t%d", r)
		mustExec(t, through, "CREATE TABLE "+table+" (k int PRIMARY KEY, v int)")
		for i, s := range pinned {
			if err := s.Query("SELECT k, v FROM " + table + " WHERE k = 1").Exec(); err != nil {
				t.Errorf("round %d: node %s does not know %s right after dohyo answered its CREATE: %v", r, hosts[i], table, err)
			}
		}
	}
	agreed := -1.0
	for _, s := range scrape(t, nil, "http://"+p.HTTPAddr+"/metrics") {
		if s.name == "dohyo_relay_schema_changes_total" && s.labels["agreement"] == "agreed" {
			agreed = s.value
		}
	}
	if agreed < rounds+1 {
		t.Errorf("dohyo_relay_schema_changes_total{agreement=agreed} = %v, want at least %d (the keyspace and each table)", agreed, rounds+1)
	}
	mustExec(t, through, "DROP KEYSPACE clddl")
}
