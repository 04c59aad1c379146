package embedded

import (
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		url     string
		dir     string
		salt    int
		cache   int64
		memtab  uint64
		sync    bool
		wantErr string // substring of the error; "" means success
	}{
		{url: "embedded://memory"},
		{url: "EMBEDDED://Memory/"},
		{url: "embedded:///var/lib/dohyo", dir: "/var/lib/dohyo"},
		{url: "embedded:///var/lib/dohyo/", dir: "/var/lib/dohyo"},
		{url: "embedded://./data/x", dir: "data/x"},
		{url: "embedded://../data", dir: "../data"},
		{url: "embedded://memory?salt=16&cache=128MiB&memtable=32MiB&sync=true", salt: 16, cache: 128 << 20, memtab: 32 << 20, sync: true},
		{url: "embedded:///d?salt=0&cache=64MiB&sync=false", dir: "/d", cache: 64 << 20},
		{url: "embedded://memory?cache=1000", cache: 1000},
		{url: "embedded://memory?cache=100MB", cache: 100e6},
		{url: "embedded://memory?cache=2g", cache: 2 << 30},
		{url: "embedded://memory?cache=512KiB", cache: 512 << 10},

		{url: "embedded://", wantErr: "missing directory"},
		{url: "embedded:///", wantErr: "missing directory"},
		{url: "embedded:rel/dir", wantErr: "use embedded://memory"},
		{url: "embedded://somehost/dir", wantErr: `host "somehost"`},
		{url: "embedded://memory/dir", wantErr: "takes no path"},
		{url: "embedded://user@memory", wantErr: "user info"},
		{url: "embedded://memory:9042", wantErr: "port"},
		{url: "cassandra://memory", wantErr: "scheme must be embedded"},
		{url: "/just/a/path", wantErr: "scheme must be embedded"},
		{url: "embedded://memory?salt=300", wantErr: "salt"},
		{url: "embedded://memory?salt=x", wantErr: "salt"},
		{url: "embedded://memory?salt=1&salt=2", wantErr: "2 times"},
		{url: "embedded://memory?cache=12XB", wantErr: "unknown unit"},
		{url: "embedded://memory?cache=MiB", wantErr: "want a size"},
		{url: "embedded://memory?cache=99999999999G", wantErr: "too large"},
		{url: "embedded://memory?memtable=1KiB", wantErr: "at least 1MiB"},
		{url: "embedded://memory?sync=maybe", wantErr: "sync"},
		{url: "embedded://memory?regions=4", wantErr: `unknown option "regions"`},
		{url: "embedded://memory?%zz", wantErr: "query"},
		{url: "embedded://mem ory", wantErr: "bad URL"},
	}
	for _, c := range cases {
		cfg, err := ParseURL(c.url)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseURL(%q): got err %v, want one containing %q", c.url, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseURL(%q): %v", c.url, err)
			continue
		}
		if cfg.Dir != c.dir || cfg.Salt != c.salt || cfg.CacheSize != c.cache || cfg.MemTableSize != c.memtab || cfg.Sync != c.sync {
			t.Errorf("ParseURL(%q): got dir=%q salt=%d cache=%d memtable=%d sync=%v; want dir=%q salt=%d cache=%d memtable=%d sync=%v",
				c.url, cfg.Dir, cfg.Salt, cfg.CacheSize, cfg.MemTableSize, cfg.Sync,
				c.dir, c.salt, c.cache, c.memtab, c.sync)
		}
	}
}
