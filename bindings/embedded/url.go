package embedded

import (
	"fmt"
	"math"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/engine/kv"
)

// URL options, as in embedded://memory?salt=16&cache=128MiB&memtable=32MiB&sync=true.
var urlOptions = []string{"cache", "memtable", "salt", "sync"}

// ParseURL turns a backend URL into a Config:
//
//	embedded://memory          in memory
//	embedded:///abs/dir        on disk, absolute directory
//	embedded://./rel/dir       on disk, relative to the working directory
//	embedded://../rel/dir      (likewise)
//
// Query options: salt (salt buckets of new tables, 0-256), cache and
// memtable (sizes: 64MiB, 512KiB, 1GiB, 100MB or plain bytes), sync (bool).
func ParseURL(raw string) (Config, error) {
	var cfg Config
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("embedded: bad URL %q: %s", raw, fmt.Sprintf(format, args...))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fail("%v", err)
	}
	if !strings.EqualFold(u.Scheme, "embedded") {
		return fail("scheme must be embedded, got %q", u.Scheme)
	}
	if u.Opaque != "" {
		return fail("use embedded://memory, embedded:///abs/dir or embedded://./rel/dir")
	}
	if u.User != nil || u.Fragment != "" || u.Port() != "" {
		return fail("user info, port and fragment are not allowed")
	}
	switch host := u.Host; {
	case strings.EqualFold(host, "memory"):
		if u.Path != "" && u.Path != "/" {
			return fail("embedded://memory takes no path (for a directory use embedded:///abs/dir)")
		}
	case host == "":
		if u.Path == "" || u.Path == "/" {
			return fail("missing directory: use embedded:///abs/dir or embedded://memory")
		}
		cfg.Dir = path.Clean(u.Path)
	case host == "." || host == "..":
		cfg.Dir = path.Clean(host + u.Path)
	default:
		return fail("host %q: use embedded://memory, embedded:///abs/dir or embedded://./rel/dir", host)
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
		case "cache":
			n, err := parseSize(v)
			if err != nil {
				return fail("cache=%q: %v", v, err)
			}
			cfg.CacheSize = n
		case "memtable":
			n, err := parseSize(v)
			if err != nil {
				return fail("memtable=%q: %v", v, err)
			}
			if n < 1<<20 || n >= 4<<30 {
				return fail("memtable=%q: want at least 1MiB and less than 4GiB", v)
			}
			cfg.MemTableSize = uint64(n)
		case "sync":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fail("sync=%q: want true or false", v)
			}
			cfg.Sync = b
		}
	}
	return cfg, nil
}

// parseSize parses a byte size: digits with an optional unit. IEC units
// (KiB, MiB, GiB) and the short K, M, G are powers of 1024; KB, MB, GB are
// powers of 1000.
func parseSize(s string) (int64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("want a size like 64MiB")
	}
	mult := map[string]int64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	}[strings.ToLower(unit)]
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q (use B, KiB, MiB, GiB, KB, MB or GB)", unit)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("too large")
	}
	return n * mult, nil
}
