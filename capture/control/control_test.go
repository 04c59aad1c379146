package control

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

func newSwitch(t *testing.T) (*Switch, string) {
	t.Helper()
	root := t.TempDir()
	wc := capture.DefaultWriterConfig()
	wc.Dir = filepath.Join(root, "default")
	wc.NodeID = "n1"
	return New(Config{Writer: wc, Root: root}), root
}

// TestSwitchStartStopTotals: observations reach only a running writer,
// rows are wanted only then, and totals never go backwards across a stop
// and a start.
func TestSwitchStartStopTotals(t *testing.T) {
	sw, _ := newSwitch(t)
	ctx := t.Context()
	obs := func(n int) {
		for i := 0; i < n; i++ {
			sw.Observe(&bindings.Observation{Time: time.Now(), Session: 1, Seq: uint64(i), Query: "SELECT 1"})
		}
	}
	obs(3) // stopped: dropped on the floor, not counted
	if sw.WantsRows() {
		t.Fatal("WantsRows while stopped")
	}
	if _, err := sw.Stop(ctx); err == nil {
		t.Fatal("Stop while stopped: no error")
	}
	for round, n := range []int{5, 7} {
		dir, err := sw.Start(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := sw.Running(); !ok || d != dir || !sw.WantsRows() {
			t.Fatalf("running %q %v, wants rows %v", d, ok, sw.WantsRows())
		}
		if _, err := sw.Start(ctx, ""); err == nil {
			t.Fatal("second Start: no error")
		}
		obs(n)
		st, err := sw.Stop(ctx)
		if err != nil || st.Records != uint64(n) {
			t.Fatalf("round %d: stop %+v %v, want %d records", round, st, err, n)
		}
	}
	if tot := sw.Totals(); tot.Records != 12 {
		t.Fatalf("totals %+v, want 12 records", tot)
	}
}

// TestSwitchAdminEndpoints: status, start under the root, refusals of
// paths outside it (.., absolute, a symbolic link out), stop.
func TestSwitchAdminEndpoints(t *testing.T) {
	sw, root := newSwitch(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	admitted := 0
	sw.Register(mux, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { admitted++; h.ServeHTTP(w, r) })
	})
	do := func(method, path string) (int, map[string]any) {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		var body map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		return rec.Code, body
	}
	if code, body := do("GET", "/admin/capture"); code != 200 || body["running"] != false {
		t.Fatalf("status: %d %v", code, body)
	}
	for _, bad := range []string{"../x", outside, "link/sub"} {
		if code, body := do("POST", "/admin/capture/start?dir="+bad); code != 400 || !strings.Contains(body["error"].(string), "capture") {
			t.Errorf("start ?dir=%s: %d %v, want 400", bad, code, body)
		}
	}
	code, body := do("POST", "/admin/capture/start?dir=sub/a")
	if real, _ := filepath.EvalSymlinks(root); code != 200 || body["dir"] != filepath.Join(real, "sub/a") {
		t.Fatalf("start under the root: %d %v", code, body)
	}
	if code, body := do("GET", "/admin/capture"); code != 200 || body["running"] != true || body["state"] != "ok" {
		t.Fatalf("status while running: %d %v", code, body)
	}
	if code, _ := do("POST", "/admin/capture/start"); code != 409 {
		t.Errorf("second start: %d, want 409", code)
	}
	if code, body := do("POST", "/admin/capture/stop"); code != 200 || body["running"] != false {
		t.Fatalf("stop: %d %v", code, body)
	}
	if code, _ := do("POST", "/admin/capture/stop"); code != 409 {
		t.Errorf("second stop: %d, want 409", code)
	}
	if admitted != 9 {
		t.Errorf("admin wrapper saw %d requests, want every one (9)", admitted)
	}
}
