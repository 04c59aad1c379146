package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

func TestLogrusBridgeStructuredAndBounded(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(1_700_000_000, 0)
	b := &logrusBridge{log: slog.New(slog.NewJSONHandler(&out, nil)).With("component", "gohbase"),
		now: func() time.Time { return clock }, last: map[string]time.Time{}, held: map[string]int{}}
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.AddHook(b)
	for i := 0; i < 5; i++ { // a retry loop: one line, four held back
		l.WithFields(logrus.Fields{"err": errors.New("zk: could not connect"), "table": "hbase:meta"}).Error("failed looking up region")
		clock = clock.Add(time.Second)
	}
	l.Warn("other message")
	clock = clock.Add(libLogWindow)
	l.WithField("err", "again").Error("failed looking up region")

	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), out.String())
	}
	first, other, again := lines[0], lines[1], lines[2]
	if first["msg"] != "failed looking up region" || first["level"] != "ERROR" || first["component"] != "gohbase" ||
		first["err"] != "zk: could not connect" || first["table"] != "hbase:meta" || first["repeats_not_logged"] != nil {
		t.Errorf("first line = %v", first)
	}
	if other["msg"] != "other message" || other["level"] != "WARN" {
		t.Errorf("second line = %v", other)
	}
	if again["repeats_not_logged"] != float64(4) || again["err"] != "again" {
		t.Errorf("line after the window = %v", again)
	}
}

// TestServeDownBackendErrors runs dohyo serve against backends that are not
// there: the error names the backend URL and the settings, and with
// --log-format json every line of output is JSON (gohbase's logrus lines
// included), a few lines, not one per retry.
func TestServeDownBackendErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String() // nothing listens here once closed
	ln.Close()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(dohyoBinary(t), append([]string{"serve", "--cql-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"}, args...)...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("serve %v: %v, want exit 1\n%s", args, err, out)
		}
		return string(out)
	}

	out := run("--backend", "cassandra://"+closed)
	for _, want := range []string{"backend cassandra://" + closed + " unreachable", "--backend", "Unavailable", "connection refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("cassandra refused: output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ServerError") {
		t.Errorf("a refused connection is called a ServerError:\n%s", out)
	}

	out = run("--backend", "embedded://memory", "--route", "ks=hbase://"+closed, "--log-format", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %q", l)
		}
	}
	if len(lines) > 8 {
		t.Errorf("%d lines for one unreachable HBase:\n%s", len(lines), out)
	}
	if !strings.Contains(out, `"component":"gohbase"`) || !strings.Contains(out, "backend hbase://"+closed+" unreachable") {
		t.Errorf("output lacks gohbase's line or the final error:\n%s", out)
	}
}
