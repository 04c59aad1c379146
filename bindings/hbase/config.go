package hbase

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/engine/kv"
)

// Defaults for Config.
const (
	DefaultZKRoot     = "/hbase"
	DefaultCatalog    = "default"
	DefaultOpTimeout  = 10 * time.Second
	DefaultDDLTimeout = 2 * time.Minute
	// DefaultEncoding is the data block encoding of new tables: row keys
	// (salt, token, partition key) and qualifiers share long prefixes.
	DefaultEncoding = "FAST_DIFF"
	// DefaultCompression is the compression of new tables.
	DefaultCompression = "NONE"
	// MaxRegions bounds the regions=N pre-split.
	MaxRegions = 4096
)

// Keys of TableSpec.Options (and of the backend URL) understood by Store.
const (
	OptRegions     = "regions"
	OptCompression = "compression"
	OptEncoding    = "encoding"
)

var (
	compressions = []string{"NONE", "GZ", "SNAPPY", "LZ4", "ZSTD"}
	encodings    = []string{"NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1"}
	catalogRE    = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
)

// Config configures a Store: where HBase is, and the engine settings its
// URL carries (Salt, Table), which the store hands to the engine
// (EngineDefaults).
type Config struct {
	// ZooKeeper is the quorum: "host:port[,host:port...]" (port 2181 when
	// omitted). Use 127.0.0.1 rather than localhost.
	ZooKeeper string
	// ZKRoot is HBase's znode parent (default "/hbase").
	ZKRoot string
	// Catalog names dohyo's catalog inside HBase (default "default"):
	// independent dohyo deployments on one cluster use different names.
	Catalog string
	// Salt is the number of salt buckets of new tables (0-256).
	Salt int
	// Table holds the physical options of new tables.
	Table TableOptions
	// OpTimeout bounds each data call (Apply, Get, one scan fetch, meta)
	// when the caller's context allows longer (0: DefaultOpTimeout). HBase
	// not answering within it is reported as Unavailable.
	OpTimeout time.Duration
	// DDLTimeout bounds table and namespace creation, truncation and drop
	// (0: DefaultDDLTimeout).
	DDLTimeout time.Duration
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
}

// TableOptions are the physical settings of new HBase tables.
type TableOptions struct {
	// Regions pre-splits each table into about this many regions (0: one
	// region per salt bucket, or one region when unsalted).
	Regions int
	// Compression is the family's compression: NONE, GZ, SNAPPY, LZ4 or
	// ZSTD ("" = DefaultCompression). SNAPPY, LZ4 and ZSTD need the codec
	// on the region servers; HBase refuses the table otherwise.
	Compression string
	// Encoding is the data block encoding: NONE, PREFIX, DIFF, FAST_DIFF or
	// ROW_INDEX_V1 ("" = DefaultEncoding).
	Encoding string
}

// withDefaults returns c with zero fields defaulted.
func (c Config) withDefaults() Config {
	if c.ZKRoot == "" {
		c.ZKRoot = DefaultZKRoot
	}
	if c.Catalog == "" {
		c.Catalog = DefaultCatalog
	}
	if c.OpTimeout <= 0 {
		c.OpTimeout = DefaultOpTimeout
	}
	if c.DDLTimeout <= 0 {
		c.DDLTimeout = DefaultDDLTimeout
	}
	return c
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	if strings.TrimSpace(c.ZooKeeper) == "" {
		return errors.New("hbase: config: zookeeper: empty quorum")
	}
	for _, h := range strings.Split(c.ZooKeeper, ",") {
		if _, _, err := net.SplitHostPort(h); err != nil || strings.HasPrefix(h, ":") {
			return fmt.Errorf("hbase: config: zookeeper: %q is not host:port", h)
		}
	}
	if c.ZKRoot != "" && !strings.HasPrefix(c.ZKRoot, "/") {
		return fmt.Errorf("hbase: config: zk root %q must start with /", c.ZKRoot)
	}
	if c.Catalog != "" && !catalogRE.MatchString(c.Catalog) {
		return fmt.Errorf("hbase: config: catalog %q: want 1-64 of [A-Za-z0-9_.-]", c.Catalog)
	}
	if c.Salt < 0 || c.Salt > 256 {
		return fmt.Errorf("hbase: config: salt %d: want an integer in [0, 256]", c.Salt)
	}
	if c.OpTimeout < 0 || c.DDLTimeout < 0 {
		return errors.New("hbase: config: timeouts must not be negative")
	}
	if _, err := parseTableOptions(c.Table.toMap()); err != nil {
		return fmt.Errorf("hbase: config: %w", err)
	}
	return nil
}

// toMap renders the options as TableSpec.Options (only set fields).
func (o TableOptions) toMap() map[string]string {
	m := map[string]string{}
	if o.Regions != 0 {
		m[OptRegions] = strconv.Itoa(o.Regions)
	}
	if o.Compression != "" {
		m[OptCompression] = o.Compression
	}
	if o.Encoding != "" {
		m[OptEncoding] = o.Encoding
	}
	return m
}

// parseTableOptions reads TableSpec.Options, applying defaults. Unknown
// keys are errors: a misspelt option must not silently do nothing.
func parseTableOptions(m map[string]string) (TableOptions, error) {
	o := TableOptions{Compression: DefaultCompression, Encoding: DefaultEncoding}
	for k, v := range m {
		switch k {
		case OptRegions:
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxRegions {
				return TableOptions{}, fmt.Errorf("regions=%q: want an integer in [1, %d]", v, MaxRegions)
			}
			o.Regions = n
		case OptCompression:
			u := strings.ToUpper(v)
			if u == "GZIP" {
				u = "GZ"
			}
			if !slices.Contains(compressions, u) {
				return TableOptions{}, fmt.Errorf("compression=%q: want one of %s", v, strings.Join(compressions, ", "))
			}
			o.Compression = u
		case OptEncoding:
			u := strings.ToUpper(v)
			if !slices.Contains(encodings, u) {
				return TableOptions{}, fmt.Errorf("encoding=%q: want one of %s", v, strings.Join(encodings, ", "))
			}
			o.Encoding = u
		default:
			return TableOptions{}, fmt.Errorf("unknown table option %q (known: %s, %s, %s)", k, OptRegions, OptCompression, OptEncoding)
		}
	}
	return o, nil
}

// urlOptions are the query options of an hbase:// URL.
var urlOptions = []string{"catalog", OptCompression, "ddl_timeout", OptEncoding, OptRegions, "salt", "timeout"}

// ParseURL turns a backend URL into a Config:
//
//	hbase://127.0.0.1:2181?salt=16&regions=8&compression=GZ&encoding=FAST_DIFF
//	hbase://zk1:2181,zk2:2181,zk3/hbase-unsecure?catalog=staging
//
// The host part is the ZooKeeper quorum (port 2181 by default), the path,
// if any, HBase's znode parent. Options: salt (0-256), regions (1-4096),
// compression (NONE, GZ, SNAPPY, LZ4, ZSTD), encoding (NONE, PREFIX, DIFF,
// FAST_DIFF, ROW_INDEX_V1), catalog (a name, see Config.Catalog), timeout
// and ddl_timeout (Go durations such as 10s or 2m).
func ParseURL(raw string) (Config, error) {
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("hbase: bad URL %q: %s", raw, fmt.Sprintf(format, args...))
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !strings.EqualFold(scheme, "hbase") {
		return fail("want hbase://zk-host:port[,host:port...][/znode-parent][?options]")
	}
	// The quorum may list several hosts, which net/url rejects as a host;
	// cut it off by hand and let net/url parse the remainder.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	hosts, tail := rest[:end], rest[end:]
	if strings.Contains(hosts, "@") {
		return fail("user info is not supported")
	}
	if hosts == "" {
		return fail("missing ZooKeeper host")
	}
	var quorum []string
	for _, h := range strings.Split(hosts, ",") {
		if h == "" {
			return fail("empty host in %q", hosts)
		}
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			// No port (or a bracketed IPv6 literal without one).
			host, port = strings.Trim(h, "[]"), "2181"
		}
		if host == "" {
			return fail("empty host in %q", h)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return fail("bad port in %q", h)
		}
		quorum = append(quorum, net.JoinHostPort(host, port))
	}
	u, err := url.Parse("x://h" + tail)
	if err != nil {
		return fail("%v", err)
	}
	if u.Fragment != "" {
		return fail("fragments are not allowed")
	}
	cfg := Config{ZooKeeper: strings.Join(quorum, ",")}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		cfg.ZKRoot = p
	}
	opts, err := kv.URLOptions(u.RawQuery, urlOptions)
	if err != nil {
		return fail("%v", err)
	}
	for key, v := range opts {
		switch key {
		case "salt":
			n, err := kv.ParseSalt(v)
			if err != nil {
				return fail("%v", err)
			}
			cfg.Salt = n
		case OptRegions, OptCompression, OptEncoding:
			o, err := parseTableOptions(map[string]string{key: v})
			if err != nil {
				return fail("%v", err)
			}
			switch key {
			case OptRegions:
				cfg.Table.Regions = o.Regions
			case OptCompression:
				cfg.Table.Compression = o.Compression
			case OptEncoding:
				cfg.Table.Encoding = o.Encoding
			}
		case "catalog":
			if !catalogRE.MatchString(v) {
				return fail("catalog=%q: want 1-64 of [A-Za-z0-9_.-]", v)
			}
			cfg.Catalog = v
		case "timeout", "ddl_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fail("%s=%q: want a positive duration such as 10s", key, v)
			}
			if key == "timeout" {
				cfg.OpTimeout = d
			} else {
				cfg.DDLTimeout = d
			}
		}
	}
	if err := cfg.Validate(); err != nil {
		return fail("%v", err)
	}
	return cfg, nil
}
