package mirror_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/mirror"
)

// adminServer serves RegisterAdmin for m behind a check that lets only
// requests with the header X-Admin through.
func adminServer(t *testing.T, m *mirror.Mirror) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	admin := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Admin") == "" {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	mirror.RegisterAdmin(mux, m, mirror.AdminConfig{Admin: admin, Primary: "cassandra://u:secret@h:9042/", Version: "test"})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func call(t *testing.T, srv *httptest.Server, method, path, body string, asAdmin bool) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if asAdmin {
		req.Header.Set("X-Admin", "1")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// TestAdminWithoutMirror: with no mirror configured the status lists
// none and the other endpoints answer 409; every endpoint is behind admin.
func TestAdminWithoutMirror(t *testing.T) {
	srv := adminServer(t, nil)
	for _, c := range []struct{ method, path string }{
		{"GET", "/admin/mirror"}, {"PUT", "/admin/mirror/keyspaces"},
		{"GET", "/admin/mirror/report"}, {"GET", "/admin/mirror/live"},
	} {
		if code, _, _ := call(t, srv, c.method, c.path, "{}", false); code != http.StatusForbidden {
			t.Errorf("%s %s without admin: %d, want 403", c.method, c.path, code)
		}
	}
	if code, _, body := call(t, srv, "GET", "/admin/mirror", "", true); code != http.StatusOK || !strings.Contains(body, `"mirrors":[]`) {
		t.Errorf("status: %d %s", code, body)
	}
	for _, c := range []struct{ method, path string }{
		{"PUT", "/admin/mirror/keyspaces"}, {"GET", "/admin/mirror/report"}, {"GET", "/admin/mirror/live"},
	} {
		if code, _, body := call(t, srv, c.method, c.path, "{}", true); code != http.StatusConflict || !strings.Contains(body, "--mirror") {
			t.Errorf("%s %s: %d %s, want 409 naming --mirror", c.method, c.path, code, body)
		}
	}
}

// TestAdminEndpoints: status, keyspace changes (bad bodies and unknown
// mirrors refused), the report in each format and the live page.
func TestAdminEndpoints(t *testing.T) {
	e := newEnv(t, 1, open(t), 0)
	srv := adminServer(t, e.m)

	code, _, body := call(t, srv, "GET", "/admin/mirror", "", true)
	var st struct {
		Mirrors   []mirror.Status     `json:"mirrors"`
		Keyspaces map[string][]string `json:"keyspaces"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || code != http.StatusOK {
		t.Fatalf("status %d %s (%v)", code, body, err)
	}
	if len(st.Mirrors) != 1 || st.Mirrors[0].Name != "copy" || len(st.Keyspaces["ks"]) != 1 {
		t.Errorf("status: %+v", st)
	}

	for _, bad := range []string{"not json", `{"ks": ["nope"]}`} {
		if code, _, body := call(t, srv, "PUT", "/admin/mirror/keyspaces", bad, true); code != http.StatusBadRequest {
			t.Errorf("PUT %s: %d %s, want 400", bad, code, body)
		}
	}
	if code, _, body := call(t, srv, "PUT", "/admin/mirror/keyspaces", `{"ks2": ["copy"]}`, true); code != http.StatusOK ||
		!strings.Contains(body, `"ks2":["copy"]`) || strings.Contains(body, `"ks":`) {
		t.Errorf("PUT keyspaces: %d %s", code, body)
	}

	for format, ct := range map[string]string{"": "application/json", "json": "application/json", "text": "text/plain", "html": "text/html"} {
		code, gotCT, body := call(t, srv, "GET", "/admin/mirror/report?window=10m&format="+format, "", true)
		if code != http.StatusOK || !strings.HasPrefix(gotCT, ct) || strings.Contains(body, "secret") {
			t.Errorf("report format %q: %d %s, %.200s", format, code, gotCT, body)
		}
	}
	if code, _, _ := call(t, srv, "GET", "/admin/mirror/report?format=xml", "", true); code != http.StatusBadRequest {
		t.Errorf("report format xml: %d, want 400", code)
	}
	for _, w := range []string{"2h", "-1m", "soon"} {
		if code, _, _ := call(t, srv, "GET", "/admin/mirror/report?window="+w, "", true); code != http.StatusBadRequest {
			t.Errorf("window %s: %d, want 400", w, code)
		}
	}
	code, ct, page := call(t, srv, "GET", "/admin/mirror/live", "", true)
	if code != http.StatusOK || !strings.HasPrefix(ct, "text/html") || !strings.Contains(page, `<meta http-equiv="refresh" content="10">`) {
		t.Errorf("live: %d %s %.300s", code, ct, page)
	}
}
