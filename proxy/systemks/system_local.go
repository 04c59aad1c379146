package systemks

import (
	"context"
	"math/bits"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// system.local and system.peers: the dohyo instances are the cluster. Each
// instance owns NumTokens Murmur3 tokens, interleaved with the other
// instances' so the whole ring is covered evenly and token-aware drivers
// find an owner for every partition.

const (
	// StoragePort is the listen/broadcast port reported for every instance
	// (dohyo has no gossip), and the coordinator port of trace sessions.
	StoragePort = 7000
	partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"
	systemFlush = int(time.Hour / time.Millisecond)
)

func systemParams(p *schema.TableParams) {
	p.GCGraceSeconds = 0
	p.MemtableFlushPeriodInMs = systemFlush
}

func (v *Backend) addNodeTables() {
	v.define("system", "information about the local node", `CREATE TABLE local (
		key text PRIMARY KEY, bootstrapped text, broadcast_address inet, broadcast_port int,
		cluster_name text, cql_version text, data_center text, gossip_generation int,
		host_id uuid, listen_address inet, listen_port int, native_protocol_version text,
		partitioner text, rack text, release_version text, rpc_address inet, rpc_port int,
		schema_version uuid, tokens set<varchar>, truncated_at map<uuid, blob>)`,
		systemParams, v.localRows, false)
	v.define("system", "information about known peers in the cluster", `CREATE TABLE peers (
		peer inet PRIMARY KEY, data_center text, host_id uuid, preferred_ip inet, rack text,
		release_version text, rpc_address inet, schema_version uuid, tokens set<varchar>)`,
		systemParams, v.peerRows, false)
	// peers_v2 (Cassandra 4.0+) lists the same peers with their ports: the
	// drivers that read it first reach each peer on its own native_port.
	v.define("system", "information about known peers in the cluster", `CREATE TABLE peers_v2 (
		peer inet, peer_port int, data_center text, host_id uuid, native_address inet,
		native_port int, preferred_ip inet, preferred_port int, rack text,
		release_version text, schema_version uuid, tokens set<varchar>,
		PRIMARY KEY (peer, peer_port))`,
		systemParams, v.peerV2Rows, false)
}

// Member is another dohyo instance of the tier: its advertised CQL
// host:port and the catalog version it has loaded (the Coordinator's merged
// catalog Version, reported as its system.local schema_version).
type Member struct {
	Addr          string
	SchemaVersion string
}

// node is one dohyo instance as the ring sees it.
type node struct {
	ip   net.IP
	port int
	// schema is the instance's own schema version ("" for a static peer:
	// the same backends, hence the local one).
	schema string
}

func (n node) key() string { return net.JoinHostPort(n.ip.String(), strconv.Itoa(n.port)) }

// self is this instance as the client reached it: the configured
// advertised address, else the connection's local address.
func (v *Backend) self(ctx context.Context) node {
	if a := v.cfg.ListenAddr; a != "" {
		if n, ok := v.resolve(ctx, a); ok && !n.ip.IsUnspecified() {
			return n
		}
	}
	if ta, ok := localAddr(ctx).(*net.TCPAddr); ok {
		return node{ip: ta.IP, port: ta.Port}
	}
	return node{ip: net.IPv4(127, 0, 0, 1), port: 9042}
}

// resolve turns host:port into a node (hostnames via DNS; the first
// address wins).
func (v *Backend) resolve(ctx context.Context, hostport string) (node, bool) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return node{}, false
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return node{}, false
	}
	if ip := net.ParseIP(host); ip != nil {
		return node{ip: ip, port: port}, true
	}
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		v.cfg.Logger.Warn("cannot resolve peer", "peer", hostport, "err", err)
		return node{}, false
	}
	return node{ip: ips[0], port: port}, true
}

// ring returns this instance and its peers, and each one's tokens. The
// legacy system.peers table (the one drivers read here) keys peers by IP
// and drivers reach them on the contact point's port, so peers sharing an
// IP with an instance already listed are left out of the ring.
func (v *Backend) ring(ctx context.Context) (self node, peers []node, tokens map[string][]string) {
	self = v.self(ctx)
	seen := map[string]bool{self.ip.String(): true}
	add := func(addr, schema string) {
		n, ok := v.resolve(ctx, addr)
		if !ok || seen[n.ip.String()] {
			return
		}
		seen[n.ip.String()] = true
		n.schema = schema
		peers = append(peers, n)
	}
	for _, p := range v.cfg.Peers {
		add(p, "")
	}
	if v.cfg.Members != nil {
		for _, m := range v.cfg.Members() {
			add(m.Addr, m.SchemaVersion)
		}
	}
	all := append([]node{self}, peers...)
	sort.Slice(all, func(i, j int) bool { return all[i].key() < all[j].key() })
	tokens = make(map[string][]string, len(all))
	per := v.cfg.NumTokens
	for i, n := range all {
		tokens[n.key()] = ringTokens(i, len(all), per)
	}
	return self, peers, tokens
}

// ringTokens returns the tokens of instance i of n: the ring split into
// n*per equal ranges, instance i owning every n-th boundary from i on.
func ringTokens(i, n, per int) []string {
	total := uint64(n * per)
	out := make([]string, 0, per)
	for k := 0; k < per; k++ {
		j := uint64(i + k*n)
		off, _ := bits.Div64(j, 0, total) // floor(j * 2^64 / total), exact
		t := int64(off + 1<<63)           // offset from Murmur3's minimum token
		out = append(out, strconv.FormatInt(t, 10))
	}
	return out
}

// hostID derives a stable host id from an instance's address.
func hostID(n node) string { return nameUUID("dohyo-host:" + n.key()) }

// schemaVersion renders the catalog version as a uuid.
func schemaVersion(cat *schema.Catalog) string { return renderSchemaVersion(cat.Version) }

// renderSchemaVersion renders a catalog version (a uuid, or any string)
// as a uuid.
func renderSchemaVersion(v string) string {
	if u, err := cql.ParseUUID(v); err == nil {
		return u.String()
	}
	return nameUUID("dohyo-schema:" + v)
}

func (v *Backend) localRows(ctx context.Context, cat *schema.Catalog) ([][][]byte, error) {
	cfg := v.cfg
	self, _, tokens := v.ring(ctx)
	b := &rowBuilder{t: v.tables["system"]["local"].meta}
	b.add(map[string]any{
		"key":                     "local",
		"bootstrapped":            "COMPLETED",
		"broadcast_address":       self.ip,
		"broadcast_port":          int32(StoragePort),
		"cluster_name":            cfg.ClusterName,
		"cql_version":             v.cfg.CQLVersion,
		"data_center":             cfg.DataCenter,
		"gossip_generation":       int32(v.cfg.Start.Unix()),
		"host_id":                 hostID(self),
		"listen_address":          self.ip,
		"listen_port":             int32(StoragePort),
		"native_protocol_version": "5",
		"partitioner":             partitioner,
		"rack":                    cfg.Rack,
		"release_version":         cfg.ReleaseVersion,
		"rpc_address":             self.ip,
		"rpc_port":                int32(self.port),
		"schema_version":          schemaVersion(cat),
		"tokens":                  tokens[self.key()],
	})
	return b.sorted()
}

func (v *Backend) peerRows(ctx context.Context, cat *schema.Catalog) ([][][]byte, error) {
	cfg := v.cfg
	_, peers, tokens := v.ring(ctx)
	b := &rowBuilder{t: v.tables["system"]["peers"].meta}
	for _, p := range peers {
		b.add(map[string]any{
			"peer":            p.ip,
			"data_center":     cfg.DataCenter,
			"host_id":         hostID(p),
			"rack":            cfg.Rack,
			"release_version": cfg.ReleaseVersion,
			"rpc_address":     p.ip,
			"schema_version":  peerSchema(cat, p),
			"tokens":          tokens[p.key()],
		})
	}
	return b.sorted()
}

func (v *Backend) peerV2Rows(ctx context.Context, cat *schema.Catalog) ([][][]byte, error) {
	cfg := v.cfg
	_, peers, tokens := v.ring(ctx)
	b := &rowBuilder{t: v.tables["system"]["peers_v2"].meta}
	for _, p := range peers {
		b.add(map[string]any{
			"peer":            p.ip,
			"peer_port":       int32(StoragePort),
			"data_center":     cfg.DataCenter,
			"host_id":         hostID(p),
			"native_address":  p.ip,
			"native_port":     int32(p.port),
			"rack":            cfg.Rack,
			"release_version": cfg.ReleaseVersion,
			"schema_version":  peerSchema(cat, p),
			"tokens":          tokens[p.key()],
		})
	}
	return b.sorted()
}

// peerSchema is the schema version a peer reports: a tier member's own, a
// static peer's the local one (it serves the same backends).
func peerSchema(cat *schema.Catalog, p node) string {
	if p.schema != "" {
		return renderSchemaVersion(p.schema)
	}
	return schemaVersion(cat)
}
