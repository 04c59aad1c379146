package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func parseConfig(t *testing.T, file string, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	flagged := DefaultConfig()
	registerFlags(fs, &flagged)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return loadConfig(fs, &flagged, file, func(k string) string { return env[k] })
}

func TestConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "dohyo.yaml")
	yaml := "cql-addr: 127.0.0.1:9500\nhttp-addr: 127.0.0.1:9501\nroute:\n  - a=embedded://memory\nshutdown-grace: 3s\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DOHYO_HTTP_ADDR": "127.0.0.1:9601", "DOHYO_NUM_TOKENS": "8"}
	cfg, err := parseConfig(t, file, env, "--num-tokens", "4")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CQLAddr != "127.0.0.1:9500" {
		t.Errorf("cql-addr = %s, want the file's value", cfg.CQLAddr)
	}
	if cfg.HTTPAddr != "127.0.0.1:9601" {
		t.Errorf("http-addr = %s, want the environment's value over the file's", cfg.HTTPAddr)
	}
	if cfg.NumTokens != 4 {
		t.Errorf("num-tokens = %d, want the flag's value over the environment's", cfg.NumTokens)
	}
	if cfg.ShutdownGrace != 3*time.Second || len(cfg.Routes) != 1 {
		t.Errorf("shutdown-grace = %v routes = %v", cfg.ShutdownGrace, cfg.Routes)
	}
	if cfg.Backend != DefaultConfig().Backend {
		t.Errorf("backend = %s, want the default", cfg.Backend)
	}
}

func TestConfigValidationNamesFields(t *testing.T) {
	_, err := parseConfig(t, "", map[string]string{"DOHYO_LOG_LEVEL": "loud"}, "--cql-addr", "nonsense", "--route", "noequals")
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, key := range []string{"cql-addr", "log-level", "route"} {
		if !strings.Contains(err.Error(), "config "+key+":") {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Errorf("error is not a *FieldError: %T", err)
	}
}

func TestConfigFileUnknownKey(t *testing.T) {
	file := filepath.Join(t.TempDir(), "dohyo.yaml")
	os.WriteFile(file, []byte("cql-adr: 1.2.3.4:5\n"), 0o600)
	if _, err := parseConfig(t, file, nil); err == nil || !strings.Contains(err.Error(), "cql-adr") {
		t.Errorf("unknown key: got %v, want an error naming it", err)
	}
}

func TestEnvNames(t *testing.T) {
	if got := envName("prepared-cache-size"); got != "DOHYO_PREPARED_CACHE_SIZE" {
		t.Errorf("envName = %s", got)
	}
}

func TestHTTPHostsIncludeListenName(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HTTPAddr, cfg.HTTPHosts = "dohyo.internal:8080", []string{"api.example"}
	if got := httpHosts(cfg); len(got) != 2 || got[0] != "api.example" || got[1] != "dohyo.internal" {
		t.Errorf("httpHosts = %v", got)
	}
	cfg.HTTPAddr = "0.0.0.0:8080"
	if got := httpHosts(cfg); len(got) != 1 {
		t.Errorf("httpHosts with an IP listen address = %v", got)
	}
}

// TestBatchThresholdsConfig: Cassandra's defaults, -1 for never, and the
// values reach the engine's thresholds.
func TestBatchThresholdsConfig(t *testing.T) {
	cfg, err := parseConfig(t, "", map[string]string{"DOHYO_BATCH_SIZE_FAIL_THRESHOLD_BYTES": "-1"},
		"--batch-size-warn-threshold-bytes", "100", "--unlogged-batch-across-partitions-warn-threshold", "3")
	if err != nil {
		t.Fatal(err)
	}
	th := cfg.thresholds()
	if th.BatchSizeWarn != 100 || th.BatchSizeFail != -1 || th.UnloggedBatchPartitions != 3 {
		t.Errorf("thresholds = %+v", *th)
	}
	def := DefaultConfig()
	if d := def.thresholds(); d.BatchSizeWarn != 5120 || d.BatchSizeFail != 51200 || d.UnloggedBatchPartitions != 10 {
		t.Errorf("default thresholds = %+v, want Cassandra 5.0's", *d)
	}
	_, err = parseConfig(t, "", nil, "--batch-size-warn-threshold-bytes", "-2")
	if err == nil || !strings.Contains(err.Error(), "config batch-size-warn-threshold-bytes:") {
		t.Errorf("-2 accepted: %v", err)
	}
}
