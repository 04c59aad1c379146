package main

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// runCLI runs the dohyo command in-process.
func runCLI(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// sameConfig compares configurations, taking nil and empty lists as equal
// (YAML's [] decodes to an empty list).
func sameConfig(t *testing.T, got, want Config) {
	t.Helper()
	gf, wf := configFields(&got), configFields(&want)
	for i := range gf {
		g, w := gf[i].v.Interface(), wf[i].v.Interface()
		if gl, ok := g.([]string); ok && len(gl) == 0 && len(w.([]string)) == 0 {
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s = %#v, want %#v", gf[i].key, g, w)
		}
	}
}

func TestConfigExampleRoundTrip(t *testing.T) {
	out, err := runCLI(t, "", "config", "example")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "dohyo.yaml")
	writeFile(t, file, []byte(out))
	got, err := parseConfig(t, file, nil)
	if err != nil {
		t.Fatalf("the example does not load: %v\n%s", err, out)
	}
	sameConfig(t, got, DefaultConfig())
	// Every key is in the file, uncommented, with its help text and its
	// environment variable.
	cfg := DefaultConfig()
	for _, f := range configFields(&cfg) {
		if !strings.Contains(out, "\n"+f.key+":") {
			t.Errorf("example lacks key %s", f.key)
		}
		if !strings.Contains(out, envName(f.key)) {
			t.Errorf("example lacks %s", envName(f.key))
		}
		if first := strings.Fields(f.help); len(first) == 0 || !strings.Contains(out, "# "+first[0]) {
			t.Errorf("example lacks the help of %s", f.key)
		}
	}
}

// TestConfigYAMLRoundTripValues: non-default values of every field type
// survive the writer, so the example reflects whatever DefaultConfig says.
func TestConfigYAMLRoundTripValues(t *testing.T) {
	cfg := DefaultConfig()
	cfg.CQLAddr = "0.0.0.0:19042"
	cfg.Routes = []string{"a=embedded://memory", "b=embedded:///tmp/x"}
	cfg.NumTokens = 3
	cfg.RequestTimeout = 1500 * time.Millisecond
	cfg.CaptureSample = 0.25
	cfg.LogFormat = "json"
	var buf bytes.Buffer
	if err := writeConfigYAML(&buf, cfg, false); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "dohyo.yaml")
	writeFile(t, file, buf.Bytes())
	got, err := parseConfig(t, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameConfig(t, got, cfg)
}

const secretKey = "hmac-key-that-must-not-leak"

func TestSecretsNeverLogged(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	user := "alice:" + string(hash)

	// The startup log of a real server (debug level), and its shutdown.
	cfg := opsConfig()
	cfg.LogLevel = "debug"
	cfg.CaptureRedactKey = secretKey
	cfg.AuthUsers = []string{user}
	p := startInProcess(t, cfg)
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	logs := p.logs.String()
	if !strings.Contains(logs, "starting dohyo") || !strings.Contains(logs, "capture-redact-key=<redacted>") {
		t.Errorf("startup log does not show the masked settings:\n%s", logs)
	}
	for _, secret := range []string{secretKey, string(hash)} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log contains a secret %q:\n%s", secret, logs)
		}
	}

	// dohyo config show masks them too.
	out, err := runCLI(t, "", "config", "show", "--capture-redact-key", secretKey, "--auth-user", user)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, secretKey) || strings.Contains(out, string(hash)) {
		t.Errorf("config show prints a secret:\n%s", out)
	}
	if !strings.Contains(out, "# capture-redact-key: <redacted>") || !strings.Contains(out, "# auth-user: <redacted>") {
		t.Errorf("config show does not mark the secrets:\n%s", out)
	}

	// A malformed secret entry is reported without its text.
	bad := "bob:not-a-bcrypt-hash-but-a-password"
	_, err = parseConfig(t, "", nil, "--auth-user", bad)
	if err == nil || strings.Contains(err.Error(), "not-a-bcrypt-hash-but-a-password") {
		t.Errorf("invalid auth-user: error %v must exist and not quote the entry", err)
	}
}

func TestHashPassword(t *testing.T) {
	out, err := runCLI(t, "correct horse\n", "config", "hash-password", "--cost", "5")
	if err != nil {
		t.Fatal(err)
	}
	hash := strings.TrimSpace(out)
	if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte("correct horse")); err != nil {
		t.Errorf("hash %q does not match the password: %v", hash, err)
	}
	if cost, _ := bcrypt.Cost([]byte(hash)); cost != 5 {
		t.Errorf("cost %d, want 5", cost)
	}
	if _, _, err := parseAuthUser("app:" + hash); err != nil {
		t.Errorf("the printed hash is not accepted by auth-user: %v", err)
	}
	if _, err := runCLI(t, "", "config", "hash-password"); err == nil {
		t.Error("empty standard input accepted")
	}
}

func TestConfigValidationOps(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		key  string
	}{
		{[]string{"--cql-tls-cert", "a.crt"}, "cql-tls-cert"},
		{[]string{"--http-tls-key", "a.key"}, "http-tls-cert"},
		{[]string{"--cql-tls-client-ca", "ca.crt"}, "cql-tls-client-ca"},
		{[]string{"--auth-user", "nocolon"}, "auth-user"},
		{[]string{"--max-client-connections", "-1"}, "max-client-connections"},
		{[]string{"--max-inflight-per-connection", "0"}, "max-inflight-per-connection"},
		{[]string{"--max-inflight", "-5"}, "max-inflight"},
		{[]string{"--inflight-wait", "-1s"}, "inflight-wait"},
		{[]string{"--request-timeout", "-1s"}, "request-timeout"},
		{[]string{"--metrics-addr", "nope"}, "metrics-addr"},
	}
	for _, tc := range cases {
		_, err := parseConfig(t, "", nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), "config "+tc.key+":") {
			t.Errorf("%v: got %v, want an error naming %s", tc.args, err, tc.key)
		}
	}

	// Users from a file merge with auth-user; bad lines name file and line.
	h1, _ := bcrypt.GenerateFromPassword([]byte("a"), bcrypt.MinCost)
	h2, _ := bcrypt.GenerateFromPassword([]byte("b"), bcrypt.MinCost)
	file := filepath.Join(dir, "users")
	writeFile(t, file, []byte("# users\n\nbob:"+string(h2)+"\n"))
	users, err := authUsers(Config{AuthUsers: []string{"alice:" + string(h1)}, AuthUsersFile: file})
	if err != nil || len(users) != 2 || users["bob"] != string(h2) {
		t.Errorf("authUsers = %v, %v", users, err)
	}
	writeFile(t, file, []byte("bob:"+string(h2)+"\ncarol:plaintext\n"))
	if _, err := authUsers(Config{AuthUsersFile: file}); err == nil || !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), "plaintext") {
		t.Errorf("bad users file: %v", err)
	}
	if _, err := authUsers(Config{AuthUsersFile: filepath.Join(dir, "missing")}); err == nil {
		t.Error("missing users file accepted")
	}
}
