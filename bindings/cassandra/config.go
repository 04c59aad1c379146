package cassandra

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// DefaultPort is Cassandra's native transport port.
const DefaultPort = 9042

// Config configures a Cassandra backend. Start from DefaultConfig.
type Config struct {
	// Hosts are contact points, "host" or "host:port" (IPv6 in brackets).
	Hosts []string `yaml:"hosts"`
	// Consistency, when set, replaces every request's consistency level
	// (replay states its test conditions this way); "" keeps the request's.
	Consistency string `yaml:"consistency"`
	// SerialConsistency likewise replaces the serial level ("" keeps it).
	SerialConsistency string `yaml:"serial_consistency"`
	// ProtoVersion is the native protocol version, 3 or 4 (gocql's maximum).
	ProtoVersion int `yaml:"proto"`
	// Timeout bounds one request when the caller's context has no deadline.
	Timeout time.Duration `yaml:"timeout"`
	// ConnectTimeout bounds dialing and the handshake.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// NumConns is gocql's connections per host for each session.
	NumConns int `yaml:"num_conns"`
	// User and Password authenticate with PasswordAuthenticator ("" = none).
	User     string `yaml:"user"`
	Password string `yaml:"password"`
	// LocalDC makes routing prefer that datacenter ("" = any).
	LocalDC string `yaml:"local_dc"`
	// SchemaRefresh is how often the cached catalog is reloaded from
	// system_schema (0 = only after DDL through this backend).
	SchemaRefresh time.Duration `yaml:"schema_refresh"`
	// SchemaAgreement bounds the wait for all nodes to agree after DDL.
	SchemaAgreement time.Duration `yaml:"schema_agreement"`
	// MaxSessions caps the gocql sessions kept open, one per keyspace in use
	// (gocql cannot switch keyspaces per request); the least recently used
	// idle one is closed beyond it.
	MaxSessions int `yaml:"max_sessions"`
	// NativeConns caps the idle raw protocol connections kept for PREPARE,
	// DDL, USE and conditional batches.
	NativeConns int `yaml:"native_conns"`
	// RelayConns is the number of relay connections per node (per protocol
	// version and keyspace in use) when dohyo serve relays this cluster's
	// keyspaces as raw frames.
	RelayConns int `yaml:"relay_conns"`
	// Heartbeat is the idle time after which relay connections are probed
	// with OPTIONS (negative disables).
	Heartbeat time.Duration `yaml:"heartbeat"`
	// SuspectAfter is how long a relay connection with requests waiting
	// may read nothing before its node is suspect (no new requests) and
	// probed with OPTIONS; without an answer within as long again the
	// connection is closed and the node routed around (0: 1s; negative
	// disables).
	SuspectAfter time.Duration `yaml:"suspect_after"`
	// Logger receives operational messages (gocql's included); nil discards.
	Logger *slog.Logger `yaml:"-"`
}

// DefaultConfig returns a configuration for a local node.
func DefaultConfig() Config {
	return Config{
		Hosts:           []string{"127.0.0.1"},
		ProtoVersion:    4,
		Timeout:         10 * time.Second,
		ConnectTimeout:  5 * time.Second,
		NumConns:        2,
		SchemaRefresh:   time.Minute,
		SchemaAgreement: 10 * time.Second,
		MaxSessions:     32,
		NativeConns:     2,
		RelayConns:      2,
		Heartbeat:       30 * time.Second,
	}
}

// String describes the configuration without its password.
func (c Config) String() string {
	pw := ""
	if c.Password != "" {
		pw = "****"
	}
	return fmt.Sprintf("cassandra{hosts=%s consistency=%q proto=%d timeout=%v user=%q password=%q}",
		strings.Join(c.Hosts, ","), c.Consistency, c.ProtoVersion, c.Timeout, c.User, pw)
}

// Validate checks every field and reports the first problem by field name.
func (c Config) Validate() error {
	if len(c.Hosts) == 0 {
		return errors.New("cassandra config: hosts: at least one host is required")
	}
	for _, h := range c.Hosts {
		if _, _, err := splitHostPort(h); err != nil {
			return fmt.Errorf("cassandra config: hosts: %w", err)
		}
	}
	for _, f := range []struct{ name, v string }{{"consistency", c.Consistency}, {"serial_consistency", c.SerialConsistency}} {
		if f.v == "" {
			continue
		}
		if _, ok := bindings.ParseConsistency(f.v); !ok {
			return fmt.Errorf("cassandra config: %s: unknown level %q", f.name, f.v)
		}
	}
	if c.SerialConsistency != "" {
		if l, _ := bindings.ParseConsistency(c.SerialConsistency); l != bindings.Serial && l != bindings.LocalSerial {
			return fmt.Errorf("cassandra config: serial_consistency: must be SERIAL or LOCAL_SERIAL, got %q", c.SerialConsistency)
		}
	}
	switch {
	case c.ProtoVersion != 3 && c.ProtoVersion != 4:
		return fmt.Errorf("cassandra config: proto: must be 3 or 4, got %d", c.ProtoVersion)
	case c.Timeout <= 0:
		return fmt.Errorf("cassandra config: timeout: must be positive, got %v", c.Timeout)
	case c.ConnectTimeout <= 0:
		return fmt.Errorf("cassandra config: connect_timeout: must be positive, got %v", c.ConnectTimeout)
	case c.NumConns < 1:
		return fmt.Errorf("cassandra config: num_conns: must be at least 1, got %d", c.NumConns)
	case c.SchemaRefresh < 0:
		return fmt.Errorf("cassandra config: schema_refresh: must not be negative, got %v", c.SchemaRefresh)
	case c.SchemaAgreement <= 0:
		return fmt.Errorf("cassandra config: schema_agreement: must be positive, got %v", c.SchemaAgreement)
	case c.MaxSessions < 1:
		return fmt.Errorf("cassandra config: max_sessions: must be at least 1, got %d", c.MaxSessions)
	case c.NativeConns < 0:
		return fmt.Errorf("cassandra config: native_conns: must not be negative, got %d", c.NativeConns)
	case c.Password != "" && c.User == "":
		return errors.New("cassandra config: user: a password is set without a user")
	}
	return nil
}

// forcedConsistency returns the configured overrides (ok false: none).
func (c Config) forcedConsistency() (cl bindings.Consistency, clSet bool, serial bindings.Consistency, serialSet bool) {
	if c.Consistency != "" {
		cl, clSet = bindings.ParseConsistency(c.Consistency)
	}
	if c.SerialConsistency != "" {
		serial, serialSet = bindings.ParseConsistency(c.SerialConsistency)
	}
	return
}

// addrs returns the hosts as host:port.
func (c Config) addrs() []string {
	out := make([]string, 0, len(c.Hosts))
	for _, h := range c.Hosts {
		host, port, err := splitHostPort(h)
		if err != nil {
			continue
		}
		out = append(out, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	return out
}

// splitHostPort accepts "host", "host:port", "[v6]" and "[v6]:port".
func splitHostPort(h string) (string, int, error) {
	if h == "" {
		return "", 0, errors.New("empty host")
	}
	if host, p, err := net.SplitHostPort(h); err == nil {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return "", 0, fmt.Errorf("host %q: bad port %q", h, p)
		}
		if host == "" {
			return "", 0, fmt.Errorf("host %q: empty host name", h)
		}
		return host, port, nil
	}
	host := h
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		host = h[1 : len(h)-1]
	}
	if host == "" || strings.ContainsAny(host, "[]/ @?#,") || (strings.Contains(host, ":") && net.ParseIP(host) == nil) {
		return "", 0, fmt.Errorf("host %q: not a host or host:port", h)
	}
	return host, DefaultPort, nil
}

// urlOptions are the query options ParseURL accepts.
var urlOptions = []string{"connect_timeout", "consistency", "heartbeat", "local_dc", "max_sessions", "native_conns",
	"num_conns", "password", "proto", "relay_conns", "schema_agreement", "schema_refresh", "serial_consistency", "suspect_after", "timeout", "user"}

// ParseURL turns a backend URL into a Config (defaults for what it omits):
//
//	cassandra://h1,h2:9042?consistency=QUORUM&proto=4&timeout=10s&user=u&password=p
//	cassandra://u:p@10.0.0.1:9042,10.0.0.2:9043
//
// A host without a port takes the port written on the last host (9042 if
// none), so "h1,h2:9042" means both on 9042. Credentials may be given as
// user info or as the user/password options.
func ParseURL(raw string) (Config, error) {
	cfg := DefaultConfig()
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("cassandra: bad URL %q: %s", redactURL(raw), fmt.Sprintf(format, args...))
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !strings.EqualFold(scheme, "cassandra") {
		return fail("scheme must be cassandra://")
	}
	authority, query, _ := strings.Cut(rest, "?")
	authority = strings.TrimSuffix(authority, "/")
	if strings.ContainsAny(authority, "/#") {
		return fail("a path or fragment is not allowed")
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, pw, _ := strings.Cut(authority[:at], ":")
		var err error
		if cfg.User, err = url.PathUnescape(user); err != nil {
			return fail("user: %v", err)
		}
		if cfg.Password, err = url.PathUnescape(pw); err != nil {
			return fail("password: %v", err)
		}
		authority = authority[at+1:]
	}
	if authority == "" {
		return fail("no host")
	}
	hosts := strings.Split(authority, ",")
	defPort := DefaultPort
	if _, p, err := splitHostPort(hosts[len(hosts)-1]); err == nil {
		defPort = p
	}
	cfg.Hosts = cfg.Hosts[:0:0]
	for _, h := range hosts {
		host, port, err := splitHostPort(h)
		if err != nil {
			return fail("%v", err)
		}
		if _, _, perr := net.SplitHostPort(h); perr != nil {
			port = defPort
		}
		cfg.Hosts = append(cfg.Hosts, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return fail("%v", err)
	}
	for k, vs := range q {
		if !slices.Contains(urlOptions, k) {
			return fail("unknown option %q (known: %s)", k, strings.Join(urlOptions, ", "))
		}
		if len(vs) != 1 {
			return fail("option %q given %d times", k, len(vs))
		}
		v := vs[0]
		var perr error
		switch k {
		case "consistency":
			cfg.Consistency = strings.ToUpper(v)
		case "serial_consistency":
			cfg.SerialConsistency = strings.ToUpper(v)
		case "local_dc":
			cfg.LocalDC = v
		case "user":
			cfg.User = v
		case "password":
			cfg.Password = v
		case "proto":
			cfg.ProtoVersion, perr = strconv.Atoi(v)
		case "num_conns":
			cfg.NumConns, perr = strconv.Atoi(v)
		case "max_sessions":
			cfg.MaxSessions, perr = strconv.Atoi(v)
		case "native_conns":
			cfg.NativeConns, perr = strconv.Atoi(v)
		case "timeout":
			cfg.Timeout, perr = time.ParseDuration(v)
		case "connect_timeout":
			cfg.ConnectTimeout, perr = time.ParseDuration(v)
		case "schema_refresh":
			cfg.SchemaRefresh, perr = time.ParseDuration(v)
		case "schema_agreement":
			cfg.SchemaAgreement, perr = time.ParseDuration(v)
		case "relay_conns":
			cfg.RelayConns, perr = strconv.Atoi(v)
		case "heartbeat":
			cfg.Heartbeat, perr = time.ParseDuration(v)
		case "suspect_after":
			cfg.SuspectAfter, perr = time.ParseDuration(v)
		}
		if perr != nil {
			return fail("option %s: %v", k, perr)
		}
	}
	if err := cfg.Validate(); err != nil {
		return fail("%v", err)
	}
	return cfg, nil
}

// redactURL hides a password in user info or in the query.
func redactURL(raw string) string {
	if scheme, rest, ok := strings.Cut(raw, "://"); ok {
		authority, query, hasQuery := strings.Cut(rest, "?")
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			if user, _, ok := strings.Cut(authority[:at], ":"); ok {
				authority = user + ":****" + authority[at:]
			}
		}
		if hasQuery {
			parts := strings.Split(query, "&")
			for i, p := range parts {
				if strings.HasPrefix(p, "password=") && p != "password=" {
					parts[i] = "password=****"
				}
			}
			query = strings.Join(parts, "&")
			return scheme + "://" + authority + "?" + query
		}
		return scheme + "://" + authority
	}
	return raw
}
