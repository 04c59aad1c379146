package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/proxy/cqlserver"
)

// passwordStore is the CQL listener's password authenticator with one
// user per name, password "pw-"+name.
func passwordStore(t testing.TB, names ...string) *cqlserver.PasswordAuthenticator {
	t.Helper()
	users := map[string]string{}
	for _, n := range names {
		h, err := bcrypt.GenerateFromPassword([]byte("pw-"+n), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		users[n] = string(h)
	}
	a, err := cqlserver.NewPasswordAuthenticator(users)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// guardedConfig is a guard with authentication on, as dohyo serve builds it.
func guardedConfig(t testing.TB, names ...string) *httpsec.Config {
	return &httpsec.Config{Passwords: passwordStore(t, names...),
		Public: []string{"/playground", "/playground/assets/"}}
}

// login gets a token from POST /v1/auth.
func (e *testEnv) login(user, password string) (int, string) {
	e.t.Helper()
	body := fmt.Sprintf(`{"username":%q,"password":%q}`, user, password)
	res, err := e.http.Client().Post(e.http.URL+httpsec.AuthPath, "application/json", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		AuthToken string `json:"authToken"`
	}
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusCreated {
		if err := json.Unmarshal(raw, &out); err != nil || out.AuthToken == "" {
			e.t.Fatalf("POST /v1/auth answered %s", raw)
		}
	}
	return res.StatusCode, out.AuthToken
}

// do sends method to path with an optional token header and returns the
// status and body.
func (e *testEnv) do(method, path, body string, hdr map[string]string) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.http.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// TestTokenFlow: with authentication on, GraphQL answers 401 without a
// token from POST /v1/auth, and serves requests carrying one in
// X-Cassandra-Token or Authorization: Bearer.
func TestTokenFlow(t *testing.T) {
	e := newEnvWith(t, testBackends()[0], nil, guardedConfig(t, "alice"), nil)
	e.cql(`CREATE TABLE secrets (k int PRIMARY KEY, v text)`, `INSERT INTO secrets (k, v) VALUES (1, 'hidden')`)
	read := "/graphql/" + e.ks + "?query=" + url.QueryEscape(`{ secrets { values { v } } }`)
	for _, c := range []struct {
		method, path, body string
		hdr                map[string]string
	}{
		{"GET", read, "", nil},
		{"POST", "/graphql/" + e.ks, `{"query":"{ secrets { values { v } } }"}`, nil},
		{"POST", "/graphql-schema", `{"query":"{ keyspaces { name } }"}`, nil},
		{"GET", read, "", map[string]string{httpsec.TokenHeader: "not-a-token"}},
		{"GET", read, "", map[string]string{"Authorization": "Bearer not-a-token"}},
	} {
		status, body := e.do(c.method, c.path, c.body, c.hdr)
		if status != http.StatusUnauthorized || !strings.Contains(body, `"errors":[{"message":"Missing`) || strings.Contains(body, "hidden") {
			t.Errorf("%s %s %v: %d %s, want 401 with a JSON error", c.method, c.path, c.hdr, status, body)
		}
	}
	if status, _ := e.login("alice", "wrong"); status != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401", status)
	}
	if status, _ := e.login("mallory", "pw-mallory"); status != http.StatusUnauthorized {
		t.Errorf("unknown user: status %d, want 401", status)
	}
	if status, body := e.do("POST", httpsec.AuthPath, `{"username":"alice"}`, nil); status != http.StatusBadRequest {
		t.Errorf("no password: %d %s, want 400", status, body)
	}
	status, token := e.login("alice", "pw-alice")
	if status != http.StatusCreated || len(token) < 32 {
		t.Fatalf("login: status %d token %q", status, token)
	}
	for _, hdr := range []map[string]string{{httpsec.TokenHeader: token}, {"Authorization": "Bearer " + token}} {
		status, body := e.do("GET", read, "", hdr)
		if status != http.StatusOK || !strings.Contains(body, "hidden") {
			t.Errorf("with %v: %d %s", hdr, status, body)
		}
	}
	// The playground page is public: the token is typed into it.
	if status, _ := e.do("GET", "/playground", "", nil); status != http.StatusOK {
		t.Errorf("playground: status %d, want 200", status)
	}
}

// TestTokenExpiry: a token stops working after its TTL.
func TestTokenExpiry(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	g := guardedConfig(t, "alice")
	g.Tokens = httpsec.NewTokenStore(time.Minute, 0, clock)
	e := newEnvWith(t, testBackends()[0], nil, g, nil)
	_, token := e.login("alice", "pw-alice")
	q := `{"query":"{ keyspaces { name } }"}`
	if status, body := e.do("POST", "/graphql-schema", q, map[string]string{httpsec.TokenHeader: token}); status != 200 {
		t.Fatalf("fresh token: %d %s", status, body)
	}
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	if status, body := e.do("POST", "/graphql-schema", q, map[string]string{httpsec.TokenHeader: token}); status != 401 {
		t.Errorf("expired token: %d %s, want 401", status, body)
	}
}

// recordingAuthorizer refuses what deny lists and records every question.
type recordingAuthorizer struct {
	mu    sync.Mutex
	asked []string
	deny  map[string]bool // "user PERM resource"
}

func (a *recordingAuthorizer) Authorize(_ context.Context, id string, perm auth.Permission, res auth.Resource) error {
	q := fmt.Sprintf("%s %s %s", id, perm, res)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	if a.deny[q] {
		return fmt.Errorf("denied by test")
	}
	return nil
}

func (a *recordingAuthorizer) questions() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.asked, "\n")
}

// TestAuthorizerOnEveryField: each DML field and DDL mutation asks the
// Authorizer with the identity of the request's token; a refusal is an
// Unauthorized error of the field and nothing runs.
func TestAuthorizerOnEveryField(t *testing.T) {
	az := &recordingAuthorizer{deny: map[string]bool{}}
	e := newEnvWith(t, testBackends()[0], func(c *Config) { c.Authorizer = az }, guardedConfig(t, "bob"), nil)
	e.cql(`CREATE TABLE t (k int PRIMARY KEY, v text)`, `INSERT INTO t (k, v) VALUES (1, 'one')`)
	az.deny[fmt.Sprintf("bob SELECT <table %s.t>", e.ks)] = true
	az.deny[fmt.Sprintf("bob DROP <keyspace %s>", e.ks)] = true
	_, e.token = e.login("bob", "pw-bob")

	r := e.post("/graphql/"+e.ks, `{ t { values { v } } }`, nil)
	if !strings.Contains(r.errorText(), "has no SELECT permission") || strings.Contains(r.Raw, "one") {
		t.Errorf("denied read: %s", r.Raw)
	}
	if code := path(r.Errors[0].Extensions, "code"); code != "Unauthorized" {
		t.Errorf("denied read: extension code %v, want Unauthorized", code)
	}
	if r := e.post("/graphql/"+e.ks, `mutation { insertt(value: {k: 2, v: "two"}) { applied } }`, nil); len(r.Errors) > 0 {
		t.Errorf("allowed insert: %s", r.errorText())
	}
	r = e.post("/graphql-schema", fmt.Sprintf(`mutation { dropKeyspace(name: %q) }`, e.ks), nil)
	if !strings.Contains(r.errorText(), "has no DROP permission") {
		t.Errorf("denied drop: %s", r.Raw)
	}
	if r := e.post("/graphql-schema", fmt.Sprintf(`{ keyspace(name: %q) { name } }`, e.ks), nil); path(r.Data, "keyspace", "name") != e.ks {
		t.Errorf("keyspace dropped although DROP was refused: %s", r.Raw)
	}
	e.ddl(fmt.Sprintf(`mutation { createTable(keyspaceName: %q, tableName: "u", partitionKeys: [{name: "k", type: {basic: INT}}]) }`, e.ks), nil)
	asked := az.questions()
	for _, want := range []string{
		fmt.Sprintf("bob SELECT <table %s.t>", e.ks),
		fmt.Sprintf("bob MODIFY <table %s.t>", e.ks),
		fmt.Sprintf("bob DROP <keyspace %s>", e.ks),
		fmt.Sprintf("bob CREATE <keyspace %s>", e.ks),
	} {
		if !strings.Contains(asked, want) {
			t.Errorf("authorizer was not asked %q; asked:\n%s", want, asked)
		}
	}
}

// TestGetMutationRefused: GraphQL over HTTP forbids mutations over GET
// (405), so a link or <img> cannot drop a keyspace; GET queries still work.
func TestGetMutationRefused(t *testing.T) {
	e := newEnv(t, testBackends()[0], nil)
	e.cql(`CREATE TABLE t (k int PRIMARY KEY, v text)`)
	for _, c := range []struct{ path, query, op string }{
		{"/graphql-schema", fmt.Sprintf(`mutation { dropKeyspace(name: %q) }`, e.ks), ""},
		{"/graphql-schema", fmt.Sprintf(`query q { keyspaces { name } } mutation m { dropKeyspace(name: %q) }`, e.ks), "m"},
		{"/graphql/" + e.ks, `mutation { insertt(value: {k: 1, v: "x"}) { applied } }`, ""},
	} {
		q := url.Values{"query": {c.query}}
		if c.op != "" {
			q.Set("operationName", c.op)
		}
		status, body := e.do("GET", c.path+"?"+q.Encode(), "", nil)
		if status != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: %d %s, want 405", c.query, status, body)
		}
	}
	if r := e.post("/graphql-schema", fmt.Sprintf(`{ keyspace(name: %q) { tables { name } } }`, e.ks), nil); path(r.Data, "keyspace", "tables", 0, "name") != "t" {
		t.Errorf("keyspace or table gone after GET mutations: %s", r.Raw)
	}
	if r := e.post("/graphql/"+e.ks, `{ t { values { v } } }`, nil); len(path(r.Data, "t", "values").([]any)) != 0 {
		t.Errorf("GET insert ran: %s", r.Raw)
	}
	status, body := e.do("GET", "/graphql-schema?query="+url.QueryEscape(`query q { keyspaces { name } } mutation m { dropKeyspace(name: "x") }`)+"&operationName=q", "", nil)
	if status != http.StatusOK || !strings.Contains(body, e.ks) {
		t.Errorf("GET query beside a mutation: %d %s", status, body)
	}
}

// bombs are the documents of issue 15 that must be refused before they
// are validated or run.
func bombs() map[string]string {
	var frag strings.Builder // 40 fragments, each spreading the next twice
	frag.WriteString("{ keyspaces { ...F0 } }\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&frag, "fragment F%d on Keyspace { name ...F%d ...F%d }\n", i, i+1, i+1)
	}
	frag.WriteString("fragment F40 on Keyspace { name }\n")
	repeats := "{ keyspaces { " + strings.Repeat("name ", 6000) + "} }"
	var intro strings.Builder
	intro.WriteString("{ ")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&intro, "a%d: __schema { types { name fields { name } } } ", i)
	}
	intro.WriteString("}")
	return map[string]string{"fragments": frag.String(), "repeats": repeats, "introspections": intro.String()}
}

// TestGraphQLBombs: the fragment-expansion bomb, 6,000 repeats of one
// field and 3,000 aliased introspections are refused by the limit meant
// for each (its message says which: they were refused before being
// validated or run), and no goroutine keeps working on them afterwards.
// How long a refusal takes is only logged; a minute's bound on each
// request stops a bomb that got through from hanging the test.
func TestGraphQLBombs(t *testing.T) {
	e := newEnv(t, testBackends()[0], func(c *Config) { c.MaxDocumentBytes = 2 << 20 })
	baseline := runtime.NumGoroutine()
	want := map[string]string{"fragments": "Query cost exceeds", "repeats": "more than the maximum of 1000",
		"introspections": "more than the maximum"}
	for name, doc := range bombs() {
		start := time.Now()
		r := e.postWithin(time.Minute, "/graphql-schema", doc)
		if !strings.Contains(r.errorText(), want[name]) || r.Data != nil {
			t.Errorf("%s (%d bytes): %.300s", name, len(doc), r.Raw)
		}
		t.Logf("%s: %d bytes refused in %v", name, len(doc), time.Since(start))
	}
	// A cost bound that counts introspection: few fields, many __schema.
	few := "{ " + strings.Repeat("x: __schema { queryType { name } } ", 1) + "}"
	if r := e.post("/graphql-schema", strings.Replace(few, "x:", "a:", 1), nil); len(r.Errors) > 0 {
		t.Errorf("one introspection: %s", r.errorText())
	}
	var many strings.Builder
	many.WriteString("{ ")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&many, "a%d: __schema { queryType { name } } ", i)
	}
	many.WriteString("}")
	if r := e.post("/graphql-schema", many.String(), nil); !strings.Contains(r.errorText(), "Query cost exceeds") {
		t.Errorf("20 aliased introspections: %.300s", r.Raw)
	}
	e.http.CloseClientConnections()
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > baseline+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline+2 {
		t.Errorf("%d goroutines after the bombs, %d before", n, baseline)
	}
}

// TestDocumentSizeLimit: a document over MaxDocumentBytes is refused
// before it is parsed.
func TestDocumentSizeLimit(t *testing.T) {
	e := newEnv(t, testBackends()[0], func(c *Config) { c.MaxDocumentBytes = 100 })
	r := e.post("/graphql-schema", "{ keyspaces { name } }"+strings.Repeat(" ", 100), nil)
	if !strings.Contains(r.errorText(), "exceeds the maximum of 100") {
		t.Errorf("oversized document: %s", r.Raw)
	}
	if r := e.post("/graphql-schema", "{ keyspaces { name } }", nil); len(r.Errors) > 0 {
		t.Errorf("small document: %s", r.errorText())
	}
}

// FuzzGraphQLRequest sends documents and variables through the whole
// HTTP request path (guard, parsing, limits, validation, execution on the
// embedded backend): every request is answered with JSON and a known
// status, within the request deadline, and nothing panics.
func FuzzGraphQLRequest(f *testing.F) {
	e := newEnvWith(f, testBackends()[0], func(c *Config) { c.MaxDocumentBytes = 8 << 10 },
		&httpsec.Config{RequestTimeout: 5 * time.Second}, nil)
	e.cql(`CREATE TABLE t (k int PRIMARY KEY, v text, l list<int>)`, `INSERT INTO t (k, v) VALUES (1, 'one')`)
	for _, seed := range []struct{ q, vars string }{
		{`{ t { values { k v l } } }`, ``},
		{`query q($k: Int) { t(value: {k: $k}) { values { v } } }`, `{"k": 1}`},
		{`mutation m($v: String) { insertt(value: {k: 2, v: $v}) { applied } }`, `{"v": "x"}`},
		{`{ a: __schema { types { name } } b: __type(name: "t") { name } }`, `null`},
		{`{ t { ...F } } fragment F on tResult { values { ...G ...G } } fragment G on t { k }`, `{}`},
		{`{ t(options: {pageSize: 99999999999}) { values { k } } }`, `{"x": [1, {"y": null}]}`},
		{`{ keyspaces { name tables { name } } }`, `[]`},
	} {
		f.Add(seed.q, seed.vars, true)
		f.Add(seed.q, seed.vars, false)
	}
	h := e.http.Config.Handler
	f.Fuzz(func(t *testing.T, query, vars string, keyspace bool) {
		path := "/graphql-schema"
		if keyspace {
			path = "/graphql/" + e.ks
		}
		body, _ := json.Marshal(map[string]any{"query": query, "variables": json.RawMessage(validJSONOr(vars))})
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() { defer close(done); h.ServeHTTP(rec, req) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer after 20s for %q %q", query, vars)
		}
		switch rec.Code {
		case 200, 400, 404, 405, 413, 415:
		default:
			t.Fatalf("status %d for %q %q: %s", rec.Code, query, vars, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("answer is not JSON for %q %q: %s", query, vars, rec.Body)
		}
	})
}

// validJSONOr returns s when it is a JSON document, else null.
func validJSONOr(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	return "null"
}
