package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/graphql"
	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/internal/gctune"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/proxy/cqlserver"
	"github.com/dohyo/dohyo/telemetry"
)

// Config is dohyo serve's configuration. Every field has one key used
// verbatim in the YAML file and as a flag (--key), and upper-snake-cased with
// a DOHYO_ prefix as an environment variable. Precedence: defaults < file <
// environment < flags. Fields tagged secret:"true" are never logged.
type Config struct {
	CQLAddr          string   `yaml:"cql-addr" help:"CQL native protocol listen address"`
	HTTPAddr         string   `yaml:"http-addr" help:"HTTP listen address: GraphQL, playground, health, /metrics, capture admin"`
	Backend          string   `yaml:"backend" help:"backend URL of every keyspace not routed elsewhere: embedded://./dohyo-data (Pebble in a directory; embedded:///abs/dir; embedded://memory), hbase://127.0.0.1:2181?salt=16 (HBase, ZooKeeper quorum), cassandra://127.0.0.1:9042 (Cassandra, relayed)"`
	Routes           []string `yaml:"route" help:"route a keyspace to a backend, KEYSPACE=URL with any backend URL scheme (repeatable), e.g. metrics=hbase://127.0.0.1:2181, shop=cassandra://10.0.0.1:9042, scratch=embedded://memory"`
	Mirrors          []string `yaml:"mirror" help:"also send a keyspace's writes (and a sample of its reads, compared) to another backend as they happen, KEYSPACE=URL (repeatable; several mirrors per keyspace allowed); the mirror must already hold the keyspace's schema, unless mirror-schema is on"`
	MirrorReadSample float64  `yaml:"mirror-read-sample" help:"fraction (0 to 1) of the reads of mirrored keyspaces also sent to the mirrors and compared with the primary's answer"`
	MirrorQueue      int      `yaml:"mirror-queue" help:"requests waiting per mirror; more are dropped and counted (dohyo_mirror_dropped_total), the primary never waits"`
	MirrorSchema     bool     `yaml:"mirror-schema" help:"also mirror the schema statements (CREATE/ALTER/DROP, TRUNCATE) of mirrored keyspaces, each applied on a mirror after the requests before it and before those after it"`
	LogLevel         string   `yaml:"log-level" help:"debug, info, warn or error"`
	LogFormat        string   `yaml:"log-format" help:"text or json"`

	ClusterName   string        `yaml:"cluster-name" help:"cluster name reported in system.local"`
	Peers         []string      `yaml:"peer" help:"CQL addresses of the other dohyo instances, reported in system.peers (repeatable)"`
	AdvertiseAddr string        `yaml:"advertise-addr" help:"CQL host:port under which the other instances of a tier (one HBase backend) list this one in system.peers; default: cql-addr when it names a host"`
	NumTokens     int           `yaml:"num-tokens" help:"Murmur3 tokens per instance reported to drivers"`
	NodeID        string        `yaml:"node-id" help:"this instance's id (capture file names, tracing); empty: this machine's host name, read at start"`
	PreparedCache int           `yaml:"prepared-cache-size" help:"prepared statements kept (LRU)"`
	MaxFrameBytes int           `yaml:"max-frame-bytes" help:"largest accepted CQL frame body, compressed or decompressed, once a connection is authenticated (Cassandra's native_transport_max_frame_size)"`
	ShutdownGrace time.Duration `yaml:"shutdown-grace" help:"how long shutdown waits for in-flight requests"`

	MetricsAddr string `yaml:"metrics-addr" help:"also serve Prometheus /metrics on this address, plain HTTP (empty: only on http-addr)"`
	HTTPTLSCert string `yaml:"http-tls-cert" help:"PEM certificate chain: serve HTTPS on http-addr (with http-tls-key)"`
	HTTPTLSKey  string `yaml:"http-tls-key" help:"PEM private key of http-tls-cert"`

	HTTPHosts             []string      `yaml:"http-host" help:"Host header names HTTP answers besides IP addresses and localhost, e.g. dohyo.example.com (repeatable; * turns the DNS-rebinding check off)"`
	HTTPAllowedOrigins    []string      `yaml:"http-allowed-origins" help:"browser origins (scheme://host[:port]) allowed to call HTTP from other pages, answered with CORS (repeatable; empty: same origin only)"`
	HTTPMaxInFlight       int           `yaml:"http-max-inflight" help:"HTTP requests served at once; more are answered 503 with Retry-After (health probes excluded)"`
	HTTPMaxBodyBytes      int           `yaml:"http-max-body-bytes" help:"largest HTTP request body"`
	HTTPReadHeaderTimeout time.Duration `yaml:"http-read-header-timeout" help:"time a client has to send an HTTP request's headers"`
	HTTPReadTimeout       time.Duration `yaml:"http-read-timeout" help:"time a client has to send a whole HTTP request, body included"`
	HTTPWriteTimeout      time.Duration `yaml:"http-write-timeout" help:"time from the end of the request headers to the end of the response"`
	HTTPIdleTimeout       time.Duration `yaml:"http-idle-timeout" help:"how long an idle HTTP keep-alive connection stays open"`
	HTTPRequestTimeout    time.Duration `yaml:"http-request-timeout" help:"deadline of an HTTP request's work (GraphQL execution stops at it)"`
	HTTPTokenTTL          time.Duration `yaml:"http-token-ttl" help:"lifetime of a token from POST /v1/auth (with auth-user or auth-users-file)"`
	HTTPPprof             bool          `yaml:"http-pprof" help:"serve /debug/pprof/ on http-addr (admins only when authentication is on)"`
	AdminUsers            []string      `yaml:"admin-user" help:"users allowed on the admin endpoints (/admin/capture/*, /debug/pprof/) when authentication is on (repeatable; empty: nobody)"`
	GraphQLMaxDocument    int           `yaml:"graphql-max-document-bytes" help:"largest GraphQL query document"`
	GraphQLMaxNodes       int           `yaml:"graphql-max-nodes" help:"fields, fragment spreads, inline fragments, directives and arguments a GraphQL document may spell out"`
	GraphQLMaxCost        int           `yaml:"graphql-max-cost" help:"fields a GraphQL document may select after fragment expansion (__schema counts 1000, __type 100)"`

	CQLTLSCert     string   `yaml:"cql-tls-cert" help:"PEM certificate chain: require TLS on the CQL port (with cql-tls-key); re-read when the file changes"`
	CQLTLSKey      string   `yaml:"cql-tls-key" help:"PEM private key of cql-tls-cert"`
	CQLTLSClientCA string   `yaml:"cql-tls-client-ca" help:"PEM CA bundle: require client certificates signed by it (mutual TLS)"`
	AuthUsers      []string `yaml:"auth-user" secret:"true" help:"require SASL PLAIN authentication (PasswordAuthenticator); a user as NAME:BCRYPT_HASH (repeatable; make hashes with dohyo config hash-password)"`
	AuthUsersFile  string   `yaml:"auth-users-file" help:"file of NAME:BCRYPT_HASH lines (# comments) adding users to auth-user"`

	MaxClientConnections     int           `yaml:"max-client-connections" help:"open CQL connections accepted; beyond it STARTUP is answered with an Overloaded error and the connection closed (0: no limit)"`
	MaxInFlightPerConn       int           `yaml:"max-inflight-per-connection" help:"requests executing at once on one CQL connection; more are answered Overloaded"`
	MaxInFlight              int           `yaml:"max-inflight" help:"requests executing at once on the whole CQL server; more are answered Overloaded (0: no limit)"`
	InFlightWait             time.Duration `yaml:"inflight-wait" help:"how long a request may wait for a free in-flight slot before it is answered Overloaded (0: answer at once)"`
	RequestTimeout           time.Duration `yaml:"request-timeout" help:"answer a read with ReadTimeout and a write with WriteTimeout when it takes longer (0: no limit; schema changes are not limited)"`
	CQLPreAuthFrameBytes     int           `yaml:"cql-preauth-frame-bytes" help:"largest CQL frame body before the connection is authenticated (OPTIONS, STARTUP, AUTH_RESPONSE); capped at max-frame-bytes"`
	CQLHandshakeTimeout      time.Duration `yaml:"cql-handshake-timeout" help:"close CQL connections that have not reached READY/AUTH_SUCCESS this long after accept (0: no limit)"`
	CQLIdleTimeout           time.Duration `yaml:"cql-idle-timeout" help:"close CQL connections that sent nothing for this long with nothing in flight (0: never; drivers heartbeat every 30s)"`
	CQLFrameTimeout          time.Duration `yaml:"cql-frame-timeout" help:"close CQL connections whose frame takes longer than this from its first byte to its last (slowloris; 0: no limit)"`
	CQLWriteTimeout          time.Duration `yaml:"cql-write-timeout" help:"close CQL connections whose client accepts none of its answers for this long (0: no limit)"`
	CQLMaxPendingConnections int           `yaml:"cql-max-pending-connections" help:"CQL connections still in their handshake; beyond it the oldest is closed to admit the new one (they do not count against max-client-connections)"`
	CQLOutboundBytes         int           `yaml:"cql-outbound-bytes" help:"per CQL connection, unsent answer bytes beyond which its socket is not read until the client catches up"`
	AuthBackoffThreshold     int           `yaml:"auth-backoff-threshold" help:"failed CQL authentications from one address before further attempts are delayed (-1: no backoff)"`
	AuthBackoffBase          time.Duration `yaml:"auth-backoff-base" help:"first delay after auth-backoff-threshold failures; doubles per further failure"`
	AuthBackoffMax           time.Duration `yaml:"auth-backoff-max" help:"longest delay of an authentication attempt"`
	GCHeapFloor              int           `yaml:"gc-heap-floor-bytes" help:"the Go garbage collector waits until the heap reaches at least this size (a small live heap is otherwise collected many times a second); 0: Go's default; ignored when the GOGC environment variable is set"`
	KeyspaceTimeouts         []string      `yaml:"request-timeout-keyspace" help:"request-timeout of one keyspace, KEYSPACE=DURATION (repeatable; 0: no limit); clients may tighten a request's budget with the custom payload entry dohyo-budget-ms or the GraphQL header X-Dohyo-Budget-Ms"`

	BatchSizeWarn         int `yaml:"batch-size-warn-threshold-bytes" help:"embedded and HBase keyspaces: a batch over several partitions whose data (as Cassandra counts it) exceeds this many bytes is answered with a client warning, as Cassandra's batch_size_warn_threshold (-1: never)"`
	BatchSizeFail         int `yaml:"batch-size-fail-threshold-bytes" help:"embedded and HBase keyspaces: such a batch larger than this is refused with 'Batch too large', as Cassandra's batch_size_fail_threshold (-1: never)"`
	UnloggedBatchWarnKeys int `yaml:"unlogged-batch-across-partitions-warn-threshold" help:"embedded and HBase keyspaces: an unlogged or counter batch over more partitions than this is answered with a client warning, as Cassandra's unlogged_batch_across_partitions_warn_threshold (-1: never)"`

	TracingEndpoint    string  `yaml:"tracing-endpoint" help:"OpenTelemetry: export request spans to this OTLP collector URL, e.g. http://127.0.0.1:4317 (empty: off)"`
	TracingProtocol    string  `yaml:"tracing-protocol" help:"OTLP protocol of tracing-endpoint: grpc or http/protobuf"`
	TracingSampleRatio float64 `yaml:"tracing-sample-ratio" help:"fraction of requests traced (a client's sampled traceparent is always followed)"`
	TraceSessions      int     `yaml:"trace-sessions" help:"CQL TRACING sessions kept in memory for system_traces (oldest dropped first)"`

	CaptureDir        string        `yaml:"capture-dir" help:"capture every request into segment files in this directory (empty: off; start/stop at runtime via POST /admin/capture/{start,stop})"`
	CaptureRoot       string        `yaml:"capture-root" help:"directories POST /admin/capture/start?dir= may name must lie under this one (default: capture-dir's parent; unset with no capture-dir: ?dir= is refused)"`
	CaptureFlush      time.Duration `yaml:"capture-flush" help:"capture flush interval: a crash loses at most this much"`
	CaptureSegment    int           `yaml:"capture-segment-bytes" help:"rotate capture segments at this size"`
	CaptureSegmentAge time.Duration `yaml:"capture-segment-age" help:"rotate capture segments at this age"`
	CaptureRetention  int           `yaml:"capture-retention-bytes" help:"delete the oldest segments beyond this total (0: keep all)"`
	CaptureQueue      int           `yaml:"capture-queue" help:"records queued for the capture writer before new ones are dropped (and counted)"`
	CaptureSample     float64       `yaml:"capture-sample" help:"fraction of sessions captured (0 or 1: all)"`
	CaptureKeyspaces  []string      `yaml:"capture-keyspace" help:"capture only these keyspaces (repeatable)"`
	CaptureExclude    []string      `yaml:"capture-exclude-keyspace" help:"never capture these keyspaces (repeatable)"`
	CaptureRedact     []string      `yaml:"capture-redact" help:"redact bound values: KEYSPACE.TABLE.COLUMN=drop|hash|length (repeatable; * allowed)"`
	CaptureRedactKey  string        `yaml:"capture-redact-key" secret:"true" help:"HMAC key for hash redaction"`
}

// DefaultConfig returns a configuration that runs with nothing installed:
// the embedded backend on disk under ./dohyo-data.
func DefaultConfig() Config {
	return Config{
		CQLAddr:       "127.0.0.1:9042",
		HTTPAddr:      "127.0.0.1:8080",
		Backend:       "embedded://./dohyo-data",
		LogLevel:      "info",
		LogFormat:     "text",
		ClusterName:   "dohyo",
		NumTokens:     16,
		PreparedCache: 10000,
		MaxFrameBytes: cqlserver.DefaultMaxFrameBytes,
		ShutdownGrace: 10 * time.Second,

		MirrorQueue:           mirror.DefaultQueue,
		MaxClientConnections:  2048,
		MaxInFlightPerConn:    1024,
		MaxInFlight:           8192,
		RequestTimeout:        cqlserver.DefaultRequestTimeout,
		GCHeapFloor:           gctune.DefaultFloor,
		BatchSizeWarn:         engine.DefaultBatchSizeWarn,
		BatchSizeFail:         engine.DefaultBatchSizeFail,
		UnloggedBatchWarnKeys: engine.DefaultUnloggedBatchPartitions,

		CQLPreAuthFrameBytes:     cqlserver.DefaultPreAuthFrameBytes,
		CQLHandshakeTimeout:      cqlserver.DefaultHandshakeTimeout,
		CQLIdleTimeout:           10 * time.Minute,
		CQLFrameTimeout:          cqlserver.DefaultFrameReadTimeout,
		CQLWriteTimeout:          cqlserver.DefaultWriteTimeout,
		CQLMaxPendingConnections: cqlserver.DefaultMaxPendingConnections,
		CQLOutboundBytes:         cqlserver.DefaultOutboundBytes,
		AuthBackoffThreshold:     cqlserver.DefaultAuthBackoffThreshold,
		AuthBackoffBase:          cqlserver.DefaultAuthBackoffBase,
		AuthBackoffMax:           cqlserver.DefaultAuthBackoffMax,
		HTTPMaxInFlight:          httpsec.DefaultMaxInFlight,
		HTTPMaxBodyBytes:         httpsec.DefaultMaxBodyBytes,
		HTTPReadHeaderTimeout:    httpsec.DefaultReadHeaderTimeout,
		HTTPReadTimeout:          httpsec.DefaultReadTimeout,
		HTTPWriteTimeout:         httpsec.DefaultWriteTimeout,
		HTTPIdleTimeout:          httpsec.DefaultIdleTimeout,
		HTTPRequestTimeout:       httpsec.DefaultRequestTimeout,
		HTTPTokenTTL:             httpsec.DefaultTokenTTL,
		GraphQLMaxDocument:       graphql.DefaultMaxDocumentBytes,
		GraphQLMaxNodes:          graphql.DefaultMaxNodes,
		GraphQLMaxCost:           graphql.DefaultMaxCost,

		TracingProtocol:    telemetry.ProtocolGRPC,
		TracingSampleRatio: 0.1,
		TraceSessions:      telemetry.DefaultSessions,

		CaptureFlush:      200 * time.Millisecond,
		CaptureSegment:    256 << 20,
		CaptureSegmentAge: time.Hour,
		CaptureQueue:      65536,
	}
}

// offIfZero maps a configured 0 ("no limit") to the CQL server's
// negative "off" (its zero means "default").
func offIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// FieldError names the configuration key that failed validation.
type FieldError struct {
	Key string
	Err error
}

func (e *FieldError) Error() string { return fmt.Sprintf("config %s: %v", e.Key, e.Err) }
func (e *FieldError) Unwrap() error { return e.Err }

// Validate checks every field and returns all problems, each naming its key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &FieldError{Key: key, Err: fmt.Errorf(format, args...)})
	}
	c.validateEndpoints(bad)
	c.validateCQL(bad)
	c.validateSecurity(bad)
	c.validateHTTP(bad)
	c.validateLimits(bad)
	c.validateTracing(bad)
	c.validateCapture(bad)
	return errors.Join(errs...)
}

// badField records a problem with the setting key.
type badField func(key, format string, args ...any)

// validateEndpoints checks the listeners, backends, routes, mirrors and logging.
func (c *Config) validateEndpoints(bad badField) {
	for key, addr := range map[string]string{"cql-addr": c.CQLAddr, "http-addr": c.HTTPAddr} {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			bad(key, "%q is not host:port: %v", addr, err)
		}
	}
	if c.Backend == "" {
		bad("backend", "must not be empty")
	}
	for _, r := range c.Routes {
		ks, url, ok := strings.Cut(r, "=")
		if !ok || ks == "" || url == "" {
			bad("route", "%q is not KEYSPACE=URL", r)
		}
	}
	for _, r := range c.Mirrors {
		ks, url, ok := strings.Cut(r, "=")
		if !ok || ks == "" || url == "" {
			bad("mirror", "%q is not KEYSPACE=URL", r)
		}
	}
	if c.MirrorReadSample < 0 || c.MirrorReadSample > 1 {
		bad("mirror-read-sample", "%v is not between 0 and 1", c.MirrorReadSample)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log-level", "%q is not one of debug, info, warn, error", c.LogLevel)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		bad("log-format", "%q is not text or json", c.LogFormat)
	}
}

// validateCQL checks the CQL server's protocol limits, guards and tier addresses.
func (c *Config) validateCQL(bad badField) {
	if c.NumTokens < 1 || c.NumTokens > 1024 {
		bad("num-tokens", "%d is outside 1..1024", c.NumTokens)
	}
	if c.PreparedCache < 1 {
		bad("prepared-cache-size", "must be at least 1")
	}
	if c.MaxFrameBytes < 1<<10 {
		bad("max-frame-bytes", "%d is below 1 KiB", c.MaxFrameBytes)
	}
	if c.CQLPreAuthFrameBytes < 1<<10 {
		bad("cql-preauth-frame-bytes", "%d is below 1 KiB", c.CQLPreAuthFrameBytes)
	}
	for key, d := range map[string]time.Duration{
		"cql-handshake-timeout": c.CQLHandshakeTimeout, "cql-idle-timeout": c.CQLIdleTimeout,
		"cql-frame-timeout": c.CQLFrameTimeout, "cql-write-timeout": c.CQLWriteTimeout,
		"auth-backoff-base": c.AuthBackoffBase, "auth-backoff-max": c.AuthBackoffMax,
	} {
		if d < 0 {
			bad(key, "must not be negative")
		}
	}
	if c.CQLMaxPendingConnections < 1 {
		bad("cql-max-pending-connections", "must be at least 1")
	}
	if c.CQLOutboundBytes < 64<<10 {
		bad("cql-outbound-bytes", "%d is below 64 KiB", c.CQLOutboundBytes)
	}
	if c.AuthBackoffThreshold < -1 || c.AuthBackoffThreshold == 0 {
		bad("auth-backoff-threshold", "must be at least 1, or -1 for no backoff")
	}
	if c.ShutdownGrace < 0 {
		bad("shutdown-grace", "must not be negative")
	}
	if c.AdvertiseAddr != "" {
		if _, _, err := net.SplitHostPort(c.AdvertiseAddr); err != nil {
			bad("advertise-addr", "%q is not host:port: %v", c.AdvertiseAddr, err)
		}
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			bad("metrics-addr", "%q is not host:port: %v", c.MetricsAddr, err)
		}
	}
}

// validateSecurity checks TLS certificate pairs and the configured users.
func (c *Config) validateSecurity(bad badField) {
	if (c.HTTPTLSCert == "") != (c.HTTPTLSKey == "") {
		bad("http-tls-cert", "http-tls-cert and http-tls-key must be set together")
	}
	if (c.CQLTLSCert == "") != (c.CQLTLSKey == "") {
		bad("cql-tls-cert", "cql-tls-cert and cql-tls-key must be set together")
	}
	if c.CQLTLSClientCA != "" && c.CQLTLSCert == "" {
		bad("cql-tls-client-ca", "needs cql-tls-cert and cql-tls-key (mutual TLS is TLS first)")
	}
	for i, u := range c.AuthUsers {
		if _, _, err := parseAuthUser(u); err != nil {
			// The entry itself is a secret: name its position only.
			bad("auth-user", "entry %d: %v", i+1, err)
		}
	}
}

// validateHTTP checks the HTTP door's limits and timeouts.
func (c *Config) validateHTTP(bad badField) {
	for key, v := range map[string]int{"http-max-inflight": c.HTTPMaxInFlight, "http-max-body-bytes": c.HTTPMaxBodyBytes,
		"graphql-max-document-bytes": c.GraphQLMaxDocument, "graphql-max-nodes": c.GraphQLMaxNodes, "graphql-max-cost": c.GraphQLMaxCost} {
		if v < 1 {
			bad(key, "must be at least 1")
		}
	}
	for key, d := range map[string]time.Duration{"http-read-header-timeout": c.HTTPReadHeaderTimeout,
		"http-read-timeout": c.HTTPReadTimeout, "http-write-timeout": c.HTTPWriteTimeout,
		"http-idle-timeout": c.HTTPIdleTimeout, "http-request-timeout": c.HTTPRequestTimeout, "http-token-ttl": c.HTTPTokenTTL} {
		if d <= 0 {
			bad(key, "must be positive")
		}
	}
}

// validateLimits checks the request limits and timeouts.
func (c *Config) validateLimits(bad badField) {
	if c.MaxClientConnections < 0 {
		bad("max-client-connections", "must not be negative")
	}
	if c.MaxInFlightPerConn < 1 {
		bad("max-inflight-per-connection", "must be at least 1")
	}
	if c.MaxInFlight < 0 {
		bad("max-inflight", "must not be negative")
	}
	if c.InFlightWait < 0 {
		bad("inflight-wait", "must not be negative")
	}
	if c.RequestTimeout < 0 {
		bad("request-timeout", "must not be negative")
	}
	if c.GCHeapFloor < 0 {
		bad("gc-heap-floor-bytes", "must not be negative")
	}
	if _, err := keyspaceTimeouts(c.KeyspaceTimeouts); err != nil {
		bad("request-timeout-keyspace", "%v", err)
	}
	for key, v := range map[string]int{"batch-size-warn-threshold-bytes": c.BatchSizeWarn,
		"batch-size-fail-threshold-bytes": c.BatchSizeFail, "unlogged-batch-across-partitions-warn-threshold": c.UnloggedBatchWarnKeys} {
		if v < -1 {
			bad(key, "must be -1 (never) or more")
		}
	}
}

// thresholds are the engine's batch thresholds from the configuration
// (-1 there: never; negative in widecolumn.Thresholds).
func (c *Config) thresholds() *engine.Thresholds {
	return &engine.Thresholds{
		BatchSizeWarn:           int64(c.BatchSizeWarn),
		BatchSizeFail:           int64(c.BatchSizeFail),
		UnloggedBatchPartitions: c.UnloggedBatchWarnKeys,
	}
}

// validateTracing checks tracing.
func (c *Config) validateTracing(bad badField) {
	if c.TracingEndpoint != "" {
		if err := c.tracingConfig().Validate(); err != nil {
			bad("tracing-endpoint", "%v", err)
		}
	}
	switch c.TracingProtocol {
	case telemetry.ProtocolGRPC, telemetry.ProtocolHTTP:
	default:
		bad("tracing-protocol", "%q is not %s or %s", c.TracingProtocol, telemetry.ProtocolGRPC, telemetry.ProtocolHTTP)
	}
	if c.TracingSampleRatio < 0 || c.TracingSampleRatio > 1 {
		bad("tracing-sample-ratio", "%v is outside 0..1", c.TracingSampleRatio)
	}
	if c.TraceSessions < 1 {
		bad("trace-sessions", "must be at least 1")
	}
}

// validateCapture checks capture.
func (c *Config) validateCapture(bad badField) {
	if c.CaptureFlush <= 0 {
		bad("capture-flush", "must be positive")
	}
	if c.CaptureSample < 0 || c.CaptureSample > 1 {
		bad("capture-sample", "%v is outside 0..1", c.CaptureSample)
	}
	if c.CaptureQueue < 1 {
		bad("capture-queue", "must be at least 1")
	}
	if _, err := parseRedactRules(c.CaptureRedact); err != nil {
		bad("capture-redact", "%v", err)
	}
}

// configFields lists the settable fields of cfg by key.
type configField struct {
	key, help string
	secret    bool
	v         reflect.Value
}

func configFields(cfg *Config) []configField {
	rv := reflect.ValueOf(cfg).Elem()
	rt := rv.Type()
	out := make([]configField, 0, rt.NumField())
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		key := f.Tag.Get("yaml")
		if key == "" || key == "-" {
			continue
		}
		out = append(out, configField{key: key, help: f.Tag.Get("help"), secret: f.Tag.Get("secret") == "true", v: rv.Field(i)})
	}
	return out
}

// envName maps a key to its environment variable.
func envName(key string) string {
	return "DOHYO_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// registerFlags adds one flag per config key, defaulting to cfg's values.
func registerFlags(fs *pflag.FlagSet, cfg *Config) {
	for _, f := range configFields(cfg) {
		help := f.help + " (env " + envName(f.key) + ")"
		switch p := f.v.Addr().Interface().(type) {
		case *string:
			fs.StringVar(p, f.key, *p, help)
		case *int:
			fs.IntVar(p, f.key, *p, help)
		case *bool:
			fs.BoolVar(p, f.key, *p, help)
		case *time.Duration:
			fs.DurationVar(p, f.key, *p, help)
		case *float64:
			fs.Float64Var(p, f.key, *p, help)
		case *[]string:
			fs.StringArrayVar(p, f.key, *p, help)
		}
	}
}

// loadConfig resolves the configuration: defaults, then the YAML file named
// by --config (or DOHYO_CONFIG), then environment variables, then the flags
// the user actually set. flagged holds the values parsed into a scratch
// Config by registerFlags.
func loadConfig(fs *pflag.FlagSet, flagged *Config, file string, getenv func(string) string) (Config, error) {
	cfg := DefaultConfig()
	if file == "" {
		file = getenv("DOHYO_CONFIG")
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return cfg, fmt.Errorf("config file: %w", err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return cfg, fmt.Errorf("config file %s: %w", file, err)
		}
	}
	fields := configFields(&cfg)
	for _, f := range fields {
		raw, ok := lookupEnv(getenv, envName(f.key))
		if !ok {
			continue
		}
		if err := setFromString(f.v, raw); err != nil {
			return cfg, &FieldError{Key: f.key, Err: fmt.Errorf("%s: %w", envName(f.key), err)}
		}
	}
	from := configFields(flagged)
	for i, f := range fields {
		if fl := fs.Lookup(f.key); fl != nil && fl.Changed {
			f.v.Set(from[i].v)
		}
	}
	return cfg, cfg.Validate()
}

func lookupEnv(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// setFromString parses an environment value into a field. Lists are
// comma-separated.
func setFromString(v reflect.Value, raw string) error {
	switch p := v.Addr().Interface().(type) {
	case *string:
		*p = raw
	case *int:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return err
		}
		*p = n
	case *bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return err
		}
		*p = b
	case *time.Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return err
		}
		*p = d
	case *float64:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return err
		}
		*p = f
	case *[]string:
		var out []string
		for _, s := range strings.Split(raw, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		*p = out
	default:
		return fmt.Errorf("unsupported field type %s", v.Type())
	}
	return nil
}

// redacted renders the effective configuration for logs, secrets masked.
func (c *Config) redacted() []any {
	cp := *c
	var out []any
	for _, f := range configFields(&cp) {
		val := f.v.Interface()
		if f.secret && !f.v.IsZero() {
			val = "<redacted>"
		}
		out = append(out, f.key, val)
	}
	return out
}
