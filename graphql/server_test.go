package graphql

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
)

func TestHTTPForms(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE t (k int PRIMARY KEY, v text)`, `INSERT INTO t (k, v) VALUES (1, 'one')`)
		base := e.http.URL + "/graphql/" + e.ks
		q := `query Q($k: Int) { t(value: {k: $k}) { values { v } } }`
		want := `{"data":{"t":{"values":[{"v":"one"}]}}}`

		get := func(params url.Values) *gqlResponse {
			req, _ := http.NewRequest(http.MethodGet, base+"?"+params.Encode(), nil)
			return e.send(req)
		}
		postRaw := func(ct, target, body string) *gqlResponse {
			req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			return e.send(req)
		}
		cases := []struct {
			name       string
			do         func() *gqlResponse
			status     int
			want, errs string
		}{
			{"GET", func() *gqlResponse {
				return get(url.Values{"query": {q}, "variables": {`{"k": 1}`}, "operationName": {"Q"}})
			}, 200, want, ""},
			{"GET without query", func() *gqlResponse { return get(url.Values{}) }, 400, "", "You must provide a GraphQL query as a URL parameter"},
			{"GET bad variables", func() *gqlResponse {
				return get(url.Values{"query": {q}, "variables": {`{k:`}})
			}, 400, "", "Could not parse variables"},
			{"POST JSON", func() *gqlResponse {
				return postRaw("application/json; charset=utf-8", base, `{"query": "`+strings.ReplaceAll(q, `"`, `\"`)+`", "variables": {"k": 1}}`)
			}, 200, want, ""},
			{"POST JSON without content type", func() *gqlResponse {
				return postRaw("", base, `{"query": "{ t(value: {k: 1}) { values { v } } }"}`)
			}, 200, want, ""},
			{"POST JSON query in URL", func() *gqlResponse {
				return postRaw("application/json", base+"?query="+url.QueryEscape(`{ t(value: {k: 1}) { values { v } } }`), ``)
			}, 200, want, ""},
			{"POST JSON query twice", func() *gqlResponse {
				return postRaw("application/json", base+"?query=x", `{"query": "{ conversionWarnings }"}`)
			}, 400, "", "both as a query parameter and in the request body"},
			{"POST JSON no query", func() *gqlResponse { return postRaw("application/json", base, `{}`) }, 400, "", "You must provide a GraphQL query"},
			{"POST bad JSON", func() *gqlResponse { return postRaw("application/json", base, `{"query": `) }, 400, "", "Could not parse the JSON body"},
			{"POST application/graphql", func() *gqlResponse {
				return postRaw("application/graphql", base, `{ t(value: {k: 1}) { values { v } } }`)
			}, 200, want, ""},
			{"POST empty application/graphql", func() *gqlResponse { return postRaw("application/graphql", base, ` `) }, 400, "", "in the request body"},
			{"POST other content type", func() *gqlResponse { return postRaw("text/plain", base, `{}`) }, 415, "", "Unsupported Content-Type"},
			{"PUT", func() *gqlResponse {
				req, _ := http.NewRequest(http.MethodPut, base, strings.NewReader(`{}`))
				return e.send(req)
			}, 405, "", "Only GET and POST"},
			{"unknown keyspace", func() *gqlResponse {
				return postRaw("application/graphql", e.http.URL+"/graphql/nope", `{ x }`)
			}, 404, "", "Unknown keyspace 'nope'"},
			{"invalid keyspace name", func() *gqlResponse {
				return postRaw("application/graphql", e.http.URL+"/graphql/a-b", `{ x }`)
			}, 400, "", "Invalid keyspace name"},
			{"no default keyspace", func() *gqlResponse {
				return postRaw("application/graphql", e.http.URL+"/graphql", `{ x }`)
			}, 404, "", "No default keyspace"},
			{"syntax error", func() *gqlResponse { return postRaw("application/graphql", base, `{ t(`) }, 200, "", "Syntax Error"},
			{"operation choice", func() *gqlResponse {
				return postRaw("application/json", base, `{"query": "query A { conversionWarnings } query B { conversionWarnings }"}`)
			}, 200, "", "Must provide operation name"},
		}
		for _, c := range cases {
			r := c.do()
			if r.Status != c.status {
				t.Errorf("%s: status %d, want %d (%s)", c.name, r.Status, c.status, r.Raw)
			}
			if c.want != "" && r.Raw != c.want {
				t.Errorf("%s: body %s, want %s", c.name, r.Raw, c.want)
			}
			if c.errs != "" && !strings.Contains(r.errorText(), c.errs) {
				t.Errorf("%s: errors %q, want %q", c.name, r.errorText(), c.errs)
			}
			if r.Status != 200 && !strings.Contains(r.Raw, `"errors":[{"message":`) {
				t.Errorf("%s: non-200 body is not a GraphQL error: %s", c.name, r.Raw)
			}
		}
	})
}

func TestDepthLimit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, func(c *Config) { c.MaxDepth = 4 })
		e.cql(`CREATE TABLE t (k int PRIMARY KEY, m map<text, int>)`)
		ok := `{ t { values { m { key } } } }`
		if r := e.post("/graphql/"+e.ks, ok, nil); len(r.Errors) > 0 {
			t.Errorf("depth 4: %s", r.errorText())
		}
		deep := `{ t { values { ...F } } } fragment F on t { m { key } k }`
		if r := e.post("/graphql/"+e.ks, deep, nil); len(r.Errors) > 0 {
			t.Errorf("depth 4 through a fragment: %s", r.errorText())
		}
		tooDeep := `{ keyspaces { tables { columns { type { info { subTypes { basic } } } } } } }`
		r := e.post("/graphql-schema", tooDeep, nil)
		if !strings.Contains(r.errorText(), "Query depth 7 exceeds the maximum depth of 4") || r.Data != nil {
			t.Errorf("depth 7: %s", r.Raw)
		}
		// Introspection is not limited (GraphiQL's query is deep).
		intro := `{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }`
		if r := e.post("/graphql/"+e.ks, intro, nil); len(r.Errors) > 0 {
			t.Errorf("introspection: %s", r.errorText())
		}
	})
}

func TestConfigValidation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		for _, cfg := range []Config{
			{},
			{Coordinator: e.coord, MaxDepth: -1},
			{Coordinator: e.coord, DefaultPageSize: 500, MaxPageSize: 100},
		} {
			if _, err := New(cfg); err == nil {
				t.Errorf("New(%+v) succeeded, want an error", cfg)
			}
		}
		if e.gql.cfg.MaxDepth != DefaultMaxDepth || e.gql.cfg.MaxPageSize != DefaultMaxPageSize || e.gql.cfg.DefaultPageSize != 100 {
			t.Errorf("defaults = %+v", e.gql.cfg)
		}
	})
}

func TestPlaygroundAssets(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		cases := []struct {
			path, contentType, contains string
			status                      int
		}{
			{"/playground", "text/html", `playground/assets/graphiql.min.js`, 200},
			{"/playground/assets/graphiql.min.js", "javascript", "GraphiQL", 200},
			{"/playground/assets/graphiql.min.css", "text/css", ".graphiql-container", 200},
			{"/playground/assets/react.production.min.js", "javascript", "react", 200},
			{"/playground/assets/react-dom.production.min.js", "javascript", "react-dom", 200},
			{"/playground/assets/playground.js", "javascript", "X-Cassandra-Token", 200},
			{"/playground/assets/nope.js", "", "", 404},
			{"/playground/assets/", "", "", 404},
		}
		for _, c := range cases {
			res, err := e.http.Client().Get(e.http.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Errorf("%s: status %d, want %d", c.path, res.StatusCode, c.status)
				continue
			}
			if c.status != 200 {
				continue
			}
			if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, c.contentType) {
				t.Errorf("%s: content type %q, want %q", c.path, ct, c.contentType)
			}
			if !strings.Contains(string(body), c.contains) {
				t.Errorf("%s: body lacks %q", c.path, c.contains)
			}
			// No CDN: nothing the page loads points off-site.
			if c.path == "/playground" && (strings.Contains(string(body), "http://") || strings.Contains(string(body), "https://")) {
				t.Errorf("playground page references an absolute URL")
			}
		}
		res, _ := e.http.Client().Get(e.http.URL + "/playground")
		res.Body.Close()
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") {
			t.Errorf("CSP = %q", csp)
		}
	})
}

// TestValidKeyspaceName checks validKeyspaceName against the regexp it
// replaces, on every string of up to two bytes and a few longer ones.
func TestValidKeyspaceName(t *testing.T) {
	re := regexp.MustCompile(`^\w+$`)
	check := func(s string) {
		if validKeyspaceName(s) != re.MatchString(s) {
			t.Errorf("validKeyspaceName(%q) = %v, regexp says %v", s, validKeyspaceName(s), re.MatchString(s))
		}
	}
	check("")
	for a := 0; a < 256; a++ {
		check(string(rune(a)))
		check(string([]byte{byte(a)}))
		for b := 0; b < 256; b++ {
			check(string([]byte{byte(a), byte(b)}))
		}
	}
	for _, s := range []string{"ks_1", "Ks9", "ks\n", "\nks", "ks-1", "ks é", "ké", "k\u212a", "a b", "gq1f_2"} {
		check(s)
	}
}

// TestReadBody checks readBody against what it replaces, io.ReadAll of an
// http.MaxBytesReader: the same bytes and the same error, for bodies below,
// at and above the limit, read whole or a byte at a time. A reader that
// fails fails both, with its error or the limit's: which one comes first
// depends on how much each read asks for (as on a network, on what has
// arrived), and the caller reports either as a failed read.
func TestReadBody(t *testing.T) {
	const limit = 100
	readers := map[string]func(b []byte) io.Reader{
		"whole":    func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"timeout":  func(b []byte) io.Reader { return iotest.TimeoutReader(bytes.NewReader(b)) },
	}
	for name, reader := range readers {
		for _, n := range []int{0, 1, 50, limit - 1, limit, limit + 1, limit + 2, 3 * limit} {
			for _, bufCap := range []int{0, 1, 64, 4096} {
				body := bytes.Repeat([]byte("x"), n)
				want, wantErr := io.ReadAll(http.MaxBytesReader(nil, io.NopCloser(reader(body)), limit))
				got, err := readBody(reader(body), make([]byte, 0, bufCap), limit)
				var tooLarge *http.MaxBytesError
				switch {
				case name == "timeout" && wantErr != nil:
					if err == nil || (err != iotest.ErrTimeout && !errors.As(err, &tooLarge)) || len(got) > limit {
						t.Errorf("%s, %d bytes, buffer of %d: got %d bytes, %v", name, n, bufCap, len(got), err)
					}
				case !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr):
					t.Errorf("%s, %d bytes, buffer of %d: got %d bytes, %v; want %d bytes, %v", name, n, bufCap, len(got), err, len(want), wantErr)
				}
			}
		}
	}
}

// TestBodyTooLarge checks the answer to a body over maxBodyBytes.
func TestBodyTooLarge(t *testing.T) {
	e := newEnv(t, testBackends()[0], nil)
	body := `{"query":"{ __typename }","x":"` + strings.Repeat("x", maxBodyBytes) + `"}`
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/graphql/"+e.ks, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	r := e.send(req)
	if r.Status != http.StatusRequestEntityTooLarge || r.errorText() != "Could not read the request body: http: request body too large" {
		t.Errorf("got %d %s", r.Status, r.Raw)
	}
}

// TestBodyWorstInput sends the JSON bodies that cost a decoder most within
// the body limit: variables nested as deep as the limit allows (scanBody
// gives up at maxScanDepth and encoding/json refuses them at its own depth
// bound) and one flat array of as many numbers as fit. Each is answered
// (400 or a GraphQL answer) while the server keeps serving.
func TestBodyWorstInput(t *testing.T) {
	e := newEnv(t, testBackends()[0], nil)
	post := func(body string) *gqlResponse {
		req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/graphql/"+e.ks, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return e.send(req)
	}
	n := (maxBodyBytes - 64) / 2
	deep := post(`{"query":"{ __typename }","variables":{"k":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`)
	if deep.Status != http.StatusBadRequest || !strings.Contains(deep.errorText(), "exceeded max depth") {
		t.Errorf("deep variables: got %d %.200s", deep.Status, deep.Raw)
	}
	wide := post(`{"query":"{ __typename }","variables":{"k":[` + strings.Repeat("0,", n-1) + `0]}}`)
	if wide.Status != http.StatusOK || len(wide.Errors) > 0 {
		t.Errorf("wide variables: got %d %.200s", wide.Status, wide.Raw)
	}
	if r := post(`{"query":"{ __typename }"}`); r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Errorf("after them: got %d %s", r.Status, r.Raw)
	}
}
