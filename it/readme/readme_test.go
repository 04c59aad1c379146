package readme

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// need returns the environment variable name's value; when it is unset the
// test is skipped, or fails under CI=true (CI must run everything).
func need(t *testing.T, name, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: %s is required under CI (make test sets it)", name, what)
		}
		t.Skipf("%s is not set (%s; make test sets it)", name, what)
	}
	return v
}

// TestReadme runs the README's quickstart and then its walkthrough, in a
// copy of the repository, as a user following it literally would.
func TestReadme(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dohyo and runs the README's blocks")
	}
	cqlsh := need(t, "DOHYO_TEST_CQLSH", "the cqlsh of it/python/setup.sh's venv")
	venv := filepath.Dir(filepath.Dir(cqlsh))
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checkVenvStamp(t, venv, root)
	blocks, err := readBlocks(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"serve", "banner", "cqlsh", "cql", "walk-workload", "walk-replay",
		"prod-fql-on", "prod-fql-off", "prod-tcpdump", "prod-import", "prod-import-pcap", "prod-replay"} {
		if _, ok := blocks[name]; !ok {
			t.Fatalf("README.md has no block marked %q", name)
		}
	}
	dir := freshCopy(t, root)
	// Each part runs alone too (-run TestReadme/production): one run
	// without the quickstart builds ./dohyo as its first command does.
	t.Run("quickstart", func(t *testing.T) { quickstart(t, dir, blocks, cqlsh, venv) })
	for _, part := range []struct {
		name string
		run  func(*testing.T, string, map[string]block, string)
	}{{"walkthrough", walkthrough}, {"production", production}} {
		t.Run(part.name, func(t *testing.T) {
			build(t, dir, blocks["serve"])
			part.run(t, dir, blocks, cqlsh)
		})
	}
}

// build runs the set-up command's build, unless ./dohyo is already there
// (the quickstart built it).
func build(t *testing.T, dir string, serve block) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "dohyo")); err == nil {
		return
	}
	cmd, _, ok := strings.Cut(serve.text, " && ")
	if !ok || !strings.HasPrefix(cmd, "go build ") {
		t.Fatalf("README block %q (line %d) no longer starts with a go build:\n%s", serve.name, serve.line, serve.text)
	}
	if r := runBlock(t, dir, env(), cmd, "", 30*time.Minute); r.code != 0 {
		t.Fatalf("build failed:\n%s", r)
	}
}

// checkVenvStamp refuses a venv made from other requirements than this
// tree's: setup.sh would delete and rebuild it, and it may be someone
// else's.
func checkVenvStamp(t *testing.T, venv, root string) {
	t.Helper()
	stamp, err := os.ReadFile(filepath.Join(venv, ".requirements.sha256"))
	if err != nil {
		t.Fatalf("DOHYO_TEST_CQLSH is not in a venv made by it/python/setup.sh: %v", err)
	}
	req, err := os.ReadFile(filepath.Join(root, "it", "python", "requirements.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x", sha256.Sum256(req)); strings.TrimSpace(string(stamp)) != want {
		t.Fatalf("the venv of DOHYO_TEST_CQLSH (%s) was made from other requirements than it/python/requirements.txt; run it/python/setup.sh", venv)
	}
}

func quickstart(t *testing.T, dir string, blocks map[string]block, cqlsh, venv string) {
	cqlPort, httpPort := freePort(t), freePort(t)
	cqlAddr, httpAddr := fmt.Sprintf("127.0.0.1:%d", cqlPort), fmt.Sprintf("127.0.0.1:%d", httpPort)
	environ := env("DOHYO_CQL_ADDR="+cqlAddr, "DOHYO_HTTP_ADDR="+httpAddr, "DOHYO_IT_VENV="+venv)

	// Terminal 1: build and serve; ready at the banner's last line.
	serve := startBlock(t, dir, environ, blocks["serve"].text,
		func(l string) bool { return strings.HasPrefix(l, "  backend: ") }, 20*time.Minute)
	if _, err := os.Stat(filepath.Join(dir, "dohyo")); err != nil {
		t.Fatalf("the build left no ./dohyo: %v", err)
	}
	// The banner the README shows is the one printed (ports aside).
	want := substitute(t, blocks["banner"], "127.0.0.1:9042", cqlAddr, "127.0.0.1:8080", httpAddr)
	if got := serve.output(); !strings.Contains(got, want) {
		t.Errorf("banner differs from the README's:\nwant\n%s\ngot\n%s", want, got)
	}

	// Terminal 2: set up cqlsh, connect, type the statements.
	script := substitute(t, blocks["cqlsh"], "it/.cache/venv/bin/cqlsh", cqlsh, "127.0.0.1 9042", fmt.Sprintf("127.0.0.1 %d", cqlPort))
	r := runBlock(t, dir, environ, script, blocks["cql"].text, 5*time.Minute)
	if r.code != 0 {
		t.Fatalf("cqlsh block failed:\n%s", r)
	}
	for _, want := range []string{
		"WARNING: cqlsh was built against", // must be absent
	} {
		if strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("cqlsh printed %q:\n%s", want, r)
		}
	}
	if strings.Contains(r.stderr, "Error") {
		t.Errorf("cqlsh reported an error:\n%s", r)
	}
	for _, re := range []string{
		`(?m)^\s*ada \|\s*2026-11-30 11:00:00\.000000\+0000 \|\s*cake \|\s*1$`,
		`(?m)^\s*ada \|\s*2026-11-30 10:00:00\.000000\+0000 \|\s*tea \|\s*2$`,
		`(?m)^\s*cake \|\s*\d{16} \|\s*3[5-6]\d\d$`, // WRITETIME in µs, TTL just under 3600
		`CREATE TABLE shop\.orders \(`,
		`(?s)CLUSTERING ORDER BY \(placed DESC\)`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("cqlsh output lacks %s:\n%s", re, r.stdout)
		}
	}

	// Ctrl-C in terminal 1: a clean stop, the data kept on disk.
	out := serve.interrupt(t, time.Minute)
	if !strings.Contains(out, "msg=stopped") {
		t.Errorf("no msg=stopped after Ctrl-C:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "dohyo-data")); err != nil {
		t.Errorf("no ./dohyo-data after the quickstart: %v", err)
	}
}

func walkthrough(t *testing.T, dir string, blocks map[string]block, cqlsh string) {
	cass := need(t, "DOHYO_TEST_CASSANDRA", "the walkthrough replays against Cassandra")
	zk := need(t, "DOHYO_TEST_HBASE_ZK", "the walkthrough replays against HBase")
	suffix := fmt.Sprintf("_%d", time.Now().UnixNano()%1e9)
	ksA, ksC := "demo_a"+suffix, "demo_c"+suffix
	environ := env()
	t.Cleanup(func() { dropKeyspace(t, cqlsh, cass, ksA); dropKeyspace(t, cqlsh, cass, ksC) })

	script := substitute(t, blocks["walk-workload"], "--keyspace demo_a ", "--keyspace "+ksA+" ", "--keyspace demo_c ", "--keyspace "+ksC+" ")
	r := runBlock(t, dir, environ, script, "", 5*time.Minute)
	if r.code != 0 {
		t.Fatalf("workload block failed:\n%s", r)
	}
	for _, capDir := range []string{"cap-a", "cap-c"} {
		inspect := runBlock(t, dir, environ, "./dohyo capture inspect ./"+capDir, "", time.Minute)
		if inspect.code != 0 || !regexp.MustCompile(`(?m)^records\s+[1-9]\d*$`).MatchString(inspect.stdout) {
			t.Fatalf("%s is not a readable capture:\n%s", capDir, inspect)
		}
	}

	script = substitute(t, blocks["walk-replay"], "127.0.0.1:2181", zk, "127.0.0.1:9042", cass)
	r = runBlock(t, dir, environ, script, "", 20*time.Minute)
	// Exit bit 4 alone (a target could not keep up) is a speed verdict on
	// a shared machine, not a failure of what the README shows.
	if r.code != 0 && r.code != 4 {
		t.Fatalf("replay block failed:\n%s", r)
	}
	checkReplay(t, dir, r.stdout)
}

func checkReplay(t *testing.T, dir, out string) {
	t.Helper()
	for _, bad := range regexp.MustCompile(`\[(COMPARE|ERRORS)\], (Mismatches|CrossTargetMismatches|Unexpected), [1-9]\d*`).FindAllString(out, -1) {
		t.Errorf("replay: %s\n%s", bad, out)
	}
	if !regexp.MustCompile(`\[COMPARE\], Compared, [1-9]\d*`).MatchString(out) {
		t.Errorf("replay compared no reads:\n%s", out)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.Contains(string(html), "Legend") {
		t.Errorf("report.html (%v) lacks the legend", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Runs []struct {
			Targets []struct {
				Name string `json:"name"`
			} `json:"targets"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Runs) == 0 {
		t.Fatalf("report.json: %v, %+v", err, rep)
	}
	names := map[string]bool{}
	for _, run := range rep.Runs {
		for _, tg := range run.Targets {
			names[tg.Name] = true
		}
	}
	if len(names) != 3 {
		t.Errorf("report.json has targets %v, want the three of the README", names)
	}
}

// dropKeyspace removes the walkthrough's keyspace from the test Cassandra.
func dropKeyspace(t *testing.T, cqlsh, cass, ks string) {
	host, port, _ := strings.Cut(cass, ":")
	r := runBlock(t, t.TempDir(), env(), fmt.Sprintf("%q %s %s -e %q", cqlsh, host, port, "DROP KEYSPACE IF EXISTS "+ks), "", 2*time.Minute)
	if r.code != 0 {
		t.Logf("dropping %s: %s", ks, r)
	}
}
