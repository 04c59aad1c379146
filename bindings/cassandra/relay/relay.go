package relay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/lru"
)

// Config describes a Cassandra cluster whose keyspaces are relayed as
// raw frames (DESIGN D2).
type Config struct {
	// Hosts are contact points (host:port); the other nodes are found in
	// system.peers_v2 (or system.peers).
	Hosts []string
	// ConnsPerNode is the number of connections per node, per protocol
	// version and per keyspace in use (default 2).
	ConnsPerNode int
	// ConnectTimeout bounds a dial with its handshake (default 5s).
	ConnectTimeout time.Duration
	// Heartbeat is the idle time after which a connection is probed with
	// OPTIONS (default 30s; negative disables).
	Heartbeat time.Duration
	// SuspectAfter is how long a connection with requests waiting may read
	// nothing before it is probed with OPTIONS, its node suspect (no new
	// requests), and, without an answer within as long again, closed and
	// its node down (health.go; default 1s, negative disables).
	SuspectAfter time.Duration
	// SchemaAgreement bounds the wait, after a relayed request changed the
	// schema, for the nodes that are not down to report one schema version
	// before the client is answered (agreement.go; default 10s, negative
	// disables).
	SchemaAgreement time.Duration
	// User and Password authenticate dohyo's own control connection when
	// Cassandra requires authentication; clients' requests are relayed
	// with the clients' own credentials.
	User, Password string
	// PreparedCacheSize bounds the remembered PREPARE requests used to
	// re-prepare on UNPREPARED (default 10,000).
	PreparedCacheSize int
	// OnSchemaChange is called on every SCHEMA_CHANGE event from the
	// cluster with the change (keyspaces, tables and types; nil for
	// functions and aggregates, and after a reconnect, when changes may
	// have been missed), and with nil before a client that changed the
	// schema through the relay is answered: the catalog must be refreshed,
	// and a change is worth an event to dohyo's clients.
	OnSchemaChange func(*bindings.SchemaChange)
	Logger         *slog.Logger
}

// Relay is a pool of native-protocol connections to one Cassandra cluster.
// Connections are grouped by node, protocol version (a client's frames are
// relayed at the client's version), keyspace (for unqualified statements:
// each group's connections have run USE once) and credentials.
type Relay struct {
	cfg Config
	log *slog.Logger

	nodesMu sync.RWMutex
	nodes   []string
	next    atomic.Uint64
	ring    atomic.Pointer[ring] // token.go; nil until discovered

	poolsMu sync.Mutex
	pools   map[poolKey]*subPool

	prepared *lru.Cache[string, *Prepared]

	needsAuth atomic.Bool
	control   atomic.Pointer[Conn]

	rediscoverCh chan struct{}
	stop         chan struct{}
	done         chan struct{}
	once         sync.Once

	waiters sync.Pool // *frameWaiter (frames.go)

	healthMap sync.Map        // node address -> *nodeHealth (health.go)
	bg        sync.WaitGroup  // probes (health.go), started by goBG
	bgMu      sync.Mutex      // guards closing and bg.Add
	closing   bool            // Close has begun: no new probes
	ctx       context.Context // ends with Close (probes)
	cancel    context.CancelFunc
	lostHook  func(*Conn, error) // lostConn, as connections' onLost

	// Counters.
	requests, reprepares, failures, resends atomic.Uint64
	// Schema changes answered after the nodes agreed, and after the
	// wait for agreement gave up (agreement.go).
	agreed, disagreed atomic.Uint64
}

type poolKey struct {
	node     string
	version  byte
	keyspace string
	creds    string
}

// New connects the control connection to one of the contact points,
// discovers the nodes and subscribes to schema changes. It fails when no
// contact point answers.
func New(ctx context.Context, cfg Config) (*Relay, error) {
	if len(cfg.Hosts) == 0 {
		return nil, errors.New("relay: no Cassandra hosts")
	}
	if cfg.ConnsPerNode <= 0 {
		cfg.ConnsPerNode = 2
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 30 * time.Second
	}
	if cfg.SuspectAfter == 0 {
		cfg.SuspectAfter = time.Second
	}
	if cfg.SchemaAgreement == 0 {
		cfg.SchemaAgreement = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	rl := &Relay{
		cfg:      cfg,
		log:      cfg.Logger,
		nodes:    append([]string(nil), cfg.Hosts...),
		pools:    map[poolKey]*subPool{},
		prepared: lru.New[string, *Prepared](orDefault(cfg.PreparedCacheSize, 10000)),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),

		rediscoverCh: make(chan struct{}, 1),
	}
	rl.ctx, rl.cancel = context.WithCancel(context.Background())
	rl.lostHook = rl.lostConn
	if err := rl.connectControl(ctx); err != nil {
		if !rl.needsAuth.Load() || cfg.User != "" {
			rl.cancel()
			return nil, fmt.Errorf("relay: %w", err)
		}
		// Cassandra wants credentials and dohyo has none of its own:
		// clients' credentials are relayed (RelayAuthenticator), but
		// without a control connection there is no node discovery and
		// no schema events (the catalog is refreshed periodically).
		rl.log.Warn("relay: Cassandra requires authentication and no user is configured; " +
			"no control connection (no node discovery, no schema events)")
	}
	go rl.maintain()
	return rl, nil
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// RequiresAuth tells whether Cassandra asked the control connection to
// authenticate (clients must then present credentials to be relayed).
func (rl *Relay) RequiresAuth() bool { return rl.needsAuth.Load() }

// Nodes returns the nodes requests are spread over.
func (rl *Relay) Nodes() []string {
	rl.nodesMu.RLock()
	defer rl.nodesMu.RUnlock()
	return append([]string(nil), rl.nodes...)
}

// Stats are the relay's counters.
type Stats struct {
	Requests, Reprepares, Failures uint64
	// Resends are requests re-sent to another node after their
	// connection was lost (idempotent ones only).
	Resends uint64
	// SchemaAgreed and SchemaDisagreed count relayed schema changes
	// answered once the nodes agreed on the schema, and those answered
	// when the wait for agreement ran out.
	SchemaAgreed, SchemaDisagreed uint64
	Connections                   int
	// Orphans are the stream ids held by requests that were abandoned
	// (timed out) before their answer came, over every connection.
	Orphans int
}

// Stats returns the relay's counters, its open connections and their
// orphaned stream ids.
func (rl *Relay) Stats() Stats {
	st := Stats{Requests: rl.requests.Load(), Reprepares: rl.reprepares.Load(), Failures: rl.failures.Load(),
		Resends: rl.resends.Load(), SchemaAgreed: rl.agreed.Load(), SchemaDisagreed: rl.disagreed.Load()}
	rl.poolsMu.Lock()
	for _, p := range rl.pools {
		st.Connections += p.live()
	}
	rl.poolsMu.Unlock()
	for _, bc := range rl.allConns() {
		st.Orphans += int(bc.orphans.Load())
	}
	return st
}

// connectControl opens the control connection (protocol v4) to the first
// contact point that answers, learns the nodes and registers for events.
func (rl *Relay) connectControl(ctx context.Context) error {
	var errs []error
	for _, host := range rl.cfg.Hosts {
		var creds *Credentials
		if rl.cfg.User != "" {
			creds = &Credentials{User: rl.cfg.User, Password: rl.cfg.Password}
		}
		bc, err := dialBackend(ctx, host, 4, creds, "", rl.cfg.ConnectTimeout, rl.log)
		if err != nil {
			var be *bindings.Error
			if errors.As(err, &be) && (be.Code == bindings.CodeAuthError) {
				rl.needsAuth.Store(true)
			}
			errs = append(errs, err)
			continue
		}
		rl.needsAuth.Store(bc.authenticated)
		bc.onEvent = rl.event
		bc.onLost.Store(&rl.lostHook)
		if err := rl.register(ctx, bc); err != nil {
			bc.close(err)
			errs = append(errs, err)
			continue
		}
		if err := rl.discover(ctx, bc, host); err != nil {
			rl.log.Warn("relay: node discovery failed; using the contact points", "err", err)
		}
		if old := rl.control.Swap(bc); old != nil {
			old.close(errors.New("control connection replaced"))
		}
		return nil
	}
	return errors.Join(errs...)
}

func (rl *Relay) register(ctx context.Context, bc *Conn) error {
	body := wire.AppendStringList(nil, []string{"SCHEMA_CHANGE", "STATUS_CHANGE", "TOPOLOGY_CHANGE"})
	r, err := bc.roundTrip(ctx, 0, wire.OpRegister, body)
	if err != nil {
		return err
	}
	if r.Header.Op == wire.OpError {
		return decodeErrorBody(r.Body)
	}
	return nil
}

// discover sets the cluster's nodes: the contact point plus every peer's
// native address (peers_v2 has the port; peers predates it), and the token
// ring (token.go).
func (rl *Relay) discover(ctx context.Context, bc *Conn, contact string) error {
	nodes := []string{contact}
	var entries []ringEntry
	if rows, err := rl.controlQuery(ctx, bc, "SELECT tokens FROM system.local"); err == nil && len(rows) == 1 {
		for _, t := range decodeTokens(rows[0][0]) {
			entries = append(entries, ringEntry{t, contact})
		}
	}
	peers, err := rl.peers(ctx, bc, "tokens")
	if err != nil {
		return err
	}
	for _, p := range peers {
		if p.ip.IsUnspecified() {
			continue
		}
		nodes = append(nodes, p.node)
		for _, t := range decodeTokens(p.value) {
			entries = append(entries, ringEntry{t, p.node})
		}
	}
	rl.nodesMu.Lock()
	rl.nodes = nodes
	rl.nodesMu.Unlock()
	rl.ring.Store(newRing(entries))
	return nil
}

// peer is a row of a node's peers table: the peer's address, its native
// address (host:port) and the value of the column asked for.
type peer struct {
	ip    net.IP
	node  string
	value []byte
}

// peers reads column of every peer bc's node knows, from system.peers_v2
// (which has the native port) or else system.peers (which predates it:
// the port is bc's); rows without an address, or short of the columns
// asked for, are left out.
func (rl *Relay) peers(ctx context.Context, bc *Conn, column string) ([]peer, error) {
	_, defPort, _ := net.SplitHostPort(bc.addr)
	rows, err := rl.controlQuery(ctx, bc, "SELECT native_address, native_port, "+column+" FROM system.peers_v2")
	if err != nil {
		if rows, err = rl.controlQuery(ctx, bc, "SELECT rpc_address, "+column+" FROM system.peers"); err != nil {
			return nil, err
		}
	}
	out := make([]peer, 0, len(rows))
	for _, row := range rows {
		if len(row) < 2 || len(row[0]) == 0 { // a short row is a malformed answer
			continue
		}
		port := defPort
		if len(row) == 3 && len(row[1]) == 4 {
			port = strconv.Itoa(int(int32(binary.BigEndian.Uint32(row[1]))))
		}
		ip := net.IP(row[0])
		out = append(out, peer{ip: ip, node: net.JoinHostPort(ip.String(), port), value: row[len(row)-1]})
	}
	return out, nil
}

// controlQuery runs a query on the control connection and returns its rows.
func (rl *Relay) controlQuery(ctx context.Context, bc *Conn, q string) ([][][]byte, error) {
	r, err := bc.roundTrip(ctx, 0, wire.OpQuery, queryBody(q, bc.version))
	if err != nil {
		return nil, err
	}
	if r.Header.Op == wire.OpError {
		return nil, decodeErrorBody(r.Body)
	}
	rb := wire.ResponseBody(r.Header, r.Body)
	if rb.Int() != wire.ResultRows {
		return nil, errors.New("not a rows result")
	}
	rows, _, err := wire.DecodeRows(&rb)
	return rows, err
}

// event handles an event pushed on the control connection.
func (rl *Relay) event(h wire.Header, body []byte) {
	r := wire.NewReader(body)
	switch r.Str() {
	case "SCHEMA_CHANGE":
		if rl.cfg.OnSchemaChange != nil {
			rl.cfg.OnSchemaChange(eventWorthy(schemaChangeOf(Response{Header: h, Body: body}, true)))
		}
	case "TOPOLOGY_CHANGE", "STATUS_CHANGE":
		change := r.Str()
		addr := eventInet(r)
		if change == "UP" || change == "NEW_NODE" {
			rl.retryNow()
			if addr != "" {
				rl.wakeProber(addr)
			}
		}
		rl.log.Info("relay: Cassandra topology or status changed; rediscovering nodes")
		select {
		case rl.rediscoverCh <- struct{}{}:
		default:
		}
	}
}

// eventInet reads an event's [inet] (address bytes and port) as host:port,
// "" when malformed.
func eventInet(r *wire.Reader) string {
	n := int(r.Byte())
	ip := r.Take(n)
	port := r.Int()
	if r.Err() != nil || (n != 4 && n != 16) {
		return ""
	}
	return net.JoinHostPort(net.IP(ip).String(), strconv.Itoa(int(port)))
}

// lostConn is every connection's onLost (lostHook): its node is down.
func (rl *Relay) lostConn(bc *Conn, err error) { rl.nodeLost(bc.addr, err) }

// maintain keeps the control connection up (reconnecting with backoff),
// rediscovers nodes on topology events and now and then, sends heartbeats
// on idle connections and drops dead ones.
func (rl *Relay) maintain() {
	defer close(rl.done)
	tick := time.NewTicker(rl.tickInterval())
	defer tick.Stop()
	var stalls <-chan time.Time
	if rl.cfg.SuspectAfter > 0 {
		st := time.NewTicker(max(rl.cfg.SuspectAfter/4, 10*time.Millisecond))
		defer st.Stop()
		stalls = st.C
	}
	backoff := 100 * time.Millisecond
	var retryAt, discoverAt time.Time
	for {
		discover := false
		select {
		case <-rl.stop:
			return
		case <-stalls:
			rl.checkStalls()
			continue
		case <-tick.C:
		case <-rl.rediscoverCh:
			discover = true
		}
		now := time.Now()
		c := rl.control.Load()
		switch {
		case (c == nil || c.isClosed()) && rl.needsAuth.Load() && rl.cfg.User == "":
			// No credentials for a control connection (see New).
		case c == nil || c.isClosed():
			if now.Before(retryAt) {
				break
			}
			ctx, cancel := context.WithTimeout(context.Background(), rl.cfg.ConnectTimeout)
			err := rl.connectControl(ctx)
			cancel()
			if err != nil {
				rl.log.Warn("relay: control connection down", "err", err, "retry_in", backoff)
				retryAt = now.Add(backoff)
				backoff = min(backoff*2, maxDialBackoff)
				break
			}
			rl.log.Info("relay: control connection up")
			backoff = 100 * time.Millisecond
			rl.retryNow()                     // the cluster answers again: no pool waits out its backoff
			if rl.cfg.OnSchemaChange != nil { // changes may have been missed
				rl.cfg.OnSchemaChange(nil)
			}
		case discover || now.After(discoverAt):
			discoverAt = now.Add(time.Minute)
			ctx, cancel := context.WithTimeout(context.Background(), rl.cfg.ConnectTimeout)
			_ = rl.discover(ctx, c, c.addr) // on failure the known nodes stay
			cancel()
		}
		if rl.cfg.Heartbeat > 0 {
			for _, bc := range rl.allConns() {
				if bc.idle(rl.cfg.Heartbeat) { // a goroutine only for those due
					go bc.heartbeat(rl.cfg.ConnectTimeout)
				}
			}
		}
		rl.prune()
	}
}

func (rl *Relay) tickInterval() time.Duration {
	if rl.cfg.Heartbeat > 0 && rl.cfg.Heartbeat < 5*time.Second {
		return rl.cfg.Heartbeat / 2
	}
	return 2 * time.Second
}

func (rl *Relay) allConns() []*Conn {
	var out []*Conn
	if c := rl.control.Load(); c != nil {
		out = append(out, c)
	}
	rl.poolsMu.Lock()
	for _, p := range rl.pools {
		p.mu.Lock()
		out = append(out, p.conns...)
		p.mu.Unlock()
	}
	rl.poolsMu.Unlock()
	return out
}

// prune drops closed connections from the pools.
func (rl *Relay) prune() {
	rl.poolsMu.Lock()
	defer rl.poolsMu.Unlock()
	for _, p := range rl.pools {
		p.prune()
	}
}

// Close closes every connection.
func (rl *Relay) Close() error {
	rl.once.Do(func() {
		close(rl.stop)
		rl.cancel()
		<-rl.done
		rl.bgMu.Lock()
		rl.closing = true
		rl.bgMu.Unlock()
		for _, bc := range rl.allConns() {
			bc.close(errors.New("relay closed"))
		}
		rl.bg.Wait()
	})
	return nil
}

// subPool holds the connections of one pool key.
type subPool struct {
	mu    sync.Mutex
	conns []*Conn
	// dialed is closed when the dial in progress ends (nil when no dial is
	// in progress): requests that find no live connection wait for it
	// instead of dialing one each.
	dialed    chan struct{}
	lastErr   error
	downUntil time.Time
	backoff   time.Duration
}

func (p *subPool) live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.conns {
		if c.usable() {
			n++
		}
	}
	return n
}

func (p *subPool) prune() {
	p.mu.Lock()
	defer p.mu.Unlock()
	live := p.conns[:0]
	for _, c := range p.conns {
		if !c.isClosed() {
			live = append(live, c)
		}
	}
	clear(p.conns[len(live):])
	p.conns = live
}

// conn returns a connection of the pool for key, dialing one when the pool
// is short of connections. While a node is down (its last dial failed) the
// dial is retried only after a backoff, and requests fail at once with the
// last dial error instead of waiting.
//
// Requests that find the pool empty while a dial is in progress wait for
// that dial rather than start one each: a burst of requests at start-up
// would otherwise open a connection per request, and requests spread over
// many connections leave in one write each instead of sharing writes.
func (rl *Relay) conn(ctx context.Context, key poolKey, creds *Credentials) (*Conn, error) {
	p := rl.pool(key)
	for {
		if bc := rl.pick(p, key, creds); bc != nil {
			return bc, nil
		}
		p.mu.Lock()
		if time.Now().Before(p.downUntil) {
			err := p.lastErr
			p.mu.Unlock()
			return nil, err
		}
		if p.dialed == nil {
			p.startDial()
			p.mu.Unlock()
			return rl.dial(ctx, p, key, creds)
		}
		dialed := p.dialed
		p.mu.Unlock()
		select {
		case <-dialed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// startDial marks a dial in progress. p.mu is held.
func (p *subPool) startDial() {
	p.dialed = make(chan struct{})
}

// liveConn returns a live connection of the first of replicas that is up
// (token.go), else of the next node that is up (round robin over those),
// for a version, credentials and keyspace group, or nil (without dialing)
// when that pool has none, or no node is up.
func (rl *Relay) liveConn(version byte, creds *Credentials, group string, replicas []string) (poolKey, *Conn) {
	node := ""
	for _, c := range replicas {
		if rl.usable(c) {
			node = c
			break
		}
	}
	rl.nodesMu.RLock()
	n := len(rl.nodes)
	start := int(rl.next.Add(1) % uint64(n))
	for i := 0; i < n && node == ""; i++ {
		if c := rl.nodes[(start+i)%n]; rl.usable(c) {
			node = c
		}
	}
	rl.nodesMu.RUnlock()
	if node == "" {
		return poolKey{}, nil
	}
	key := poolKey{node: node, version: version, keyspace: group, creds: credsKey(creds)}
	return key, rl.pick(rl.pool(key), key, creds)
}

func (rl *Relay) pool(key poolKey) *subPool {
	rl.poolsMu.Lock()
	defer rl.poolsMu.Unlock()
	p := rl.pools[key]
	if p == nil {
		p = &subPool{}
		rl.pools[key] = p
	}
	return p
}

// packInflight is how many requests a backend connection takes before
// pick spreads requests over the pool's other connections: requests
// concentrated on one connection share its writes (and Cassandra's
// answers share reads), where spread evenly each would leave alone.
const packInflight = relayStreams / 4

// pick returns the first live connection of p with fewer than
// packInflight requests in flight, else the one with the fewest (nil if
// none), and starts growing p in the background when it has fewer than
// ConnsPerNode.
func (rl *Relay) pick(p *subPool, key poolKey, creds *Credentials) *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best *Conn
	live := 0
	for _, c := range p.conns {
		if !c.usable() {
			continue
		}
		live++
		if best == nil || (best.inflight.Load() >= packInflight && c.inflight.Load() < best.inflight.Load()) {
			best = c
		}
	}
	if best != nil && live < rl.cfg.ConnsPerNode && p.dialed == nil && time.Now().After(p.downUntil) {
		p.startDial()
		go func() { // this request has a connection already
			dctx, cancel := context.WithTimeout(context.Background(), rl.cfg.ConnectTimeout)
			defer cancel()
			rl.dial(dctx, p, key, creds)
		}()
	}
	return best
}

func (rl *Relay) dial(ctx context.Context, p *subPool, key poolKey, creds *Credentials) (*Conn, error) {
	bc, err := dialBackend(ctx, key.node, key.version, creds, key.keyspace, rl.cfg.ConnectTimeout, rl.log)
	if err != nil {
		var be *bindings.Error
		if !errors.As(err, &be) {
			if ctx.Err() == nil { // the node did not answer in time
				rl.nodeLost(key.node, err)
			}
			// Nothing was sent: Unavailable tells drivers to try elsewhere.
			err = bindings.Errorf(bindings.CodeUnavailable, "dohyo relay: Cassandra node %s unreachable: %v", key.node, err)
		}
		rl.failures.Add(1)
		p.mu.Lock()
		close(p.dialed)
		p.dialed = nil
		p.backoff = min(max(2*p.backoff, 100*time.Millisecond), maxDialBackoff)
		p.downUntil = time.Now().Add(p.backoff)
		p.lastErr = err
		backoff := p.backoff
		p.mu.Unlock()
		rl.log.Warn("relay: connect failed", "node", key.node, "err", err, "retry_after", backoff)
		return nil, err
	}
	bc.onLost.Store(&rl.lostHook)
	p.mu.Lock()
	close(p.dialed)
	p.dialed = nil
	p.backoff, p.lastErr = 0, nil
	p.conns = append(p.conns, bc)
	p.mu.Unlock()
	if h := rl.health(key.node); h.get() == nodeDown {
		rl.nodeBack(h)
	}
	return bc, nil
}

// maxDialBackoff caps the wait between connection attempts to a node that
// is down. Refused dials cost microseconds; a short cap means requests
// succeed again within about this long after the node answers.
const maxDialBackoff = 2 * time.Second

// retryNow ends the backoff of every pool, so the next request dials at
// once (after the control connection is back, or a node reported UP).
func (rl *Relay) retryNow() {
	rl.poolsMu.Lock()
	ps := make([]*subPool, 0, len(rl.pools))
	for _, p := range rl.pools {
		ps = append(ps, p)
	}
	rl.poolsMu.Unlock()
	for _, p := range ps {
		p.mu.Lock()
		p.downUntil, p.backoff = time.Time{}, 0
		p.mu.Unlock()
	}
}

// pickNodes returns the nodes in the order to try for one request: those
// up first (replicas first, in their order, then round robin over the
// others), then the suspect and down ones (when none is up, a request
// still tries them).
func (rl *Relay) pickNodes(replicas []string) []string {
	rl.nodesMu.RLock()
	defer rl.nodesMu.RUnlock()
	n := len(rl.nodes)
	start := int(rl.next.Add(1) % uint64(n))
	out := make([]string, 0, n+len(replicas))
	var rest []string
	add := func(node string) {
		if slices.Contains(out, node) || slices.Contains(rest, node) {
			return
		}
		if rl.usable(node) {
			out = append(out, node)
		} else {
			rest = append(rest, node)
		}
	}
	for _, node := range replicas {
		add(node)
	}
	for i := 0; i < n; i++ {
		add(rl.nodes[(start+i)%n])
	}
	return append(out, rest...)
}

// eventWorthy returns ch when dohyo's clients can be told about it
// (dohyo's events carry keyspace, table and type changes), else nil.
func eventWorthy(ch *bindings.SchemaChange) *bindings.SchemaChange {
	if ch == nil {
		return nil
	}
	switch ch.Target {
	case bindings.TargetKeyspace, bindings.TargetTable, bindings.TargetType:
		return ch
	}
	return nil
}
