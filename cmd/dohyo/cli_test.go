package main

import (
	"net"
	"os"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

func TestVersionFlagMatchesVersionCommand(t *testing.T) {
	flag, err := runCLI(t, "", "--version")
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	cmd, err := runCLI(t, "", "version")
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	if flag != cmd || !strings.HasPrefix(flag, "dohyo ") {
		t.Fatalf("--version printed %q, version printed %q", flag, cmd)
	}
}

func TestHealthCommandIsListed(t *testing.T) {
	out, err := runCLI(t, "", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "\n  health ") {
		t.Fatalf("dohyo --help does not list health:\n%s", out)
	}
}

func TestBackendHelpNamesEveryScheme(t *testing.T) {
	out, err := runCLI(t, "", "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--backend", "--route"} {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, flag+" ") {
				line = l
			}
		}
		for _, scheme := range []string{"embedded://", "hbase://", "cassandra://"} {
			if !strings.Contains(line, scheme) {
				t.Errorf("%s help %q does not show %s", flag, line, scheme)
			}
		}
	}
}

func TestConfigExampleHasNoHostName(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skip("no host name to look for")
	}
	out, err := runCLI(t, "", "config", "example")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "\nnode-id: \"\"\n") {
		t.Fatalf("config example's node-id is not empty:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "#") && strings.Contains(l, host) {
			t.Fatalf("config example contains this machine's host name %q: %q", host, l)
		}
	}
	cfg := DefaultConfig()
	if got := cfg.nodeID(); got != host {
		t.Fatalf("empty node-id resolves to %q, want the host name %q", got, host)
	}
}

func TestListenErrorNamesTheSetting(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for key, env := range map[string]string{"cql-addr": "DOHYO_CQL_ADDR", "http-addr": "DOHYO_HTTP_ADDR", "metrics-addr": "DOHYO_METRICS_ADDR"} {
		ln, err := listen(key, held.Addr().String())
		if err == nil {
			ln.Close()
			t.Fatalf("%s: listening on a held port succeeded", key)
		}
		msg := err.Error()
		for _, want := range []string{"--" + key, env, held.Addr().String(), "address already in use"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q does not contain %q", key, msg, want)
			}
		}
	}
}

func TestReleaseVersionPassesCqlshCheck(t *testing.T) {
	// cqlsh 6.2 (check_build_versions) cuts release_version at its last '-'
	// and warns unless the rest is the Cassandra version it was built for.
	base := releaseVersion
	if i := strings.LastIndex(base, "-"); i >= 0 {
		base = base[:i]
	}
	if base != "5.0.0" || !strings.Contains(releaseVersion, "dohyo") {
		t.Fatalf("release_version %q: cqlsh compares %q with 5.0.0, and dohyo must stay visible", releaseVersion, base)
	}
}

func TestInspectSummaryNamesErringStatements(t *testing.T) {
	s := &capture.Summary{
		Records: 12, Errors: 2, Probes: 3,
		ErrCodes: map[bindings.ErrorCode]uint64{bindings.CodeInvalid: 2},
		Statements: []capture.StatementSummary{
			{Fingerprint: "SELECT a FROM ks.t WHERE k = ?", Count: 7},
			{Fingerprint: "SELECT * FROM system.peers_v2", Count: 3, Probes: 3},
			{Fingerprint: "INSERT INTO ks.u (a) VALUES (?)", Count: 2, Errors: 2,
				ErrCodes: map[bindings.ErrorCode]uint64{bindings.CodeInvalid: 2}},
		},
	}
	var out strings.Builder
	if err := writeSummary(&out, s, 1); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"errors             2 (Invalid 2)",
		"driver probes      3 (reads of system.peers_v2 answered Invalid: not errors)",
		"statements with errors",
		"2/2  Invalid 2  INSERT INTO ks.u (a) VALUES (?)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got[strings.Index(got, "statements with errors"):], "peers_v2") {
		t.Errorf("probes listed as erring statements:\n%s", got)
	}
}
