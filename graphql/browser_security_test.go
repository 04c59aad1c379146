package graphql

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dohyo/dohyo/httpsec"
)

// TestPlaygroundSignInInBrowser: with authentication on, the playground
// says it is unauthorized, signs in through POST /v1/auth with the user
// and password typed into it, and then runs a query with the token.
func TestPlaygroundSignInInBrowser(t *testing.T) {
	requireChromium(t)
	e := newEnvWith(t, testBackends()[0], nil, guardedConfig(t, "ada"), nil)
	e.cql(`CREATE TABLE notes (k int PRIMARY KEY, body text)`, `INSERT INTO notes (k, body) VALUES (1, 'behind the token')`)
	b := newBrowser(t)
	err := chromedp.Do(b.ctx,
		chromedp.Navigate(e.http.URL+"/playground"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	)
	if err != nil {
		t.Fatalf("playground: %v\npage errors: %s", err, b.errorsText())
	}
	status, err := chromedp.Run(b.ctx, chromedp.Poll[string](`(() => {
		const s = document.getElementById('status').innerText;
		return s.includes('Unauthorized') ? s : false; })()`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatalf("status before signing in: %v (%q)", err, status)
	}
	// A wrong password is reported and gives no token.
	err = chromedp.Do(b.ctx,
		chromedp.SetValue(chromedp.ID("user"), "ada"),
		chromedp.SetValue(chromedp.ID("password"), "wrong"),
		chromedp.Click(chromedp.ID("signin")),
	)
	if err == nil {
		_, err = chromedp.Run(b.ctx, chromedp.Poll[bool](`document.getElementById('status').innerText.includes('Sign in failed')`,
			chromedp.WithPollingTimeout(10*time.Second)))
	}
	if err != nil {
		t.Fatalf("wrong password: %v\npage errors: %s", err, b.errorsText())
	}
	err = chromedp.Do(b.ctx,
		chromedp.SetValue(chromedp.ID("password"), "pw-ada"),
		chromedp.Click(chromedp.ID("signin")),
	)
	if err != nil {
		t.Fatal(err)
	}
	token, err := chromedp.Run(b.ctx, chromedp.Poll[string](`(() => {
		const s = document.getElementById('status').innerText, tok = document.getElementById('token').value;
		return s.includes('keyspace(s)') && tok ? tok : false; })()`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatalf("sign in: %v\npage errors: %s", err, b.errorsText())
	}
	if user, ok := e.guard.Tokens().Lookup(token); !ok || user != "ada" {
		t.Fatalf("the token box holds %q, not a token of ada (%q %v)", token, user, ok)
	}
	query := "query {\n  notes { values { k body } }\n}\n"
	err = chromedp.Do(b.ctx,
		chromedp.SetValue(chromedp.ID("endpoint"), "/graphql/"+e.ks),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('endpoint').dispatchEvent(new Event('change'))`),
		chromedp.WaitVisible(chromedp.CSS(`.graphiql-query-editor .CodeMirror`)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
			`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(%q)`, query)),
		chromedp.Click(chromedp.CSS(`.graphiql-execute-button`)),
	)
	if err != nil {
		t.Fatalf("run query: %v\npage errors: %s", err, b.errorsText())
	}
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`(() => {
		const r = document.querySelector('.result-window');
		return !!r && r.innerText.includes('behind the token'); })()`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("result panel: %v\npage errors: %s", err, b.errorsText())
	}
}

// seenRequest is one request that reached dohyo, with its answer.
type seenRequest struct {
	method, path, query string
	status              int
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// TestCSRFInBrowser: a page on another origin that a user opens tries to
// drop a keyspace through dohyo (authentication off, the worst case: no
// token to steal) with an <img src> GET, an auto-submitted form POST and a
// no-cors fetch POST. Every attempt reaches dohyo and is refused; the
// keyspace survives.
func TestCSRFInBrowser(t *testing.T) {
	requireChromium(t)
	var mu sync.Mutex
	var seen []seenRequest
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &statusRecorder{ResponseWriter: w, status: 200}
			h.ServeHTTP(rec, r)
			if r.Header.Get("Sec-Fetch-Site") == "" {
				return // not from the browser (the test's own checks)
			}
			mu.Lock()
			seen = append(seen, seenRequest{r.Method, r.URL.Path, r.URL.RawQuery, rec.status})
			mu.Unlock()
		})
	}
	e := newEnvWith(t, testBackends()[0], nil, &httpsec.Config{Public: []string{"/playground", "/playground/assets/"}}, record)
	target := e.http.URL + "/graphql-schema" // http://127.0.0.1:PORT
	drop := fmt.Sprintf(`mutation { dropKeyspace(name: %q) }`, e.ks)
	body := fmt.Sprintf(`{"query":%q}`, drop)
	// The form's text/plain body is NAME=VALUE: split the JSON so it reads back whole.
	name, value := body[:len(body)-1]+`,"x":"`, `"}`
	page := `<!doctype html><html><body>
<img id="img" src="` + html.EscapeString(target+"?query="+url.QueryEscape(drop)) + `">
<iframe name="sink" id="sink"></iframe>
<form id="f" method="POST" action="` + html.EscapeString(target) + `" enctype="text/plain" target="sink">
<input type="hidden" name="` + html.EscapeString(name) + `" value="` + html.EscapeString(value) + `"></form>
<script>
let left = 3;
const done = () => { if (--left === 0) document.title = 'done'; };
const img = document.getElementById('img');
if (img.complete) done(); else { img.onload = done; img.onerror = done; }
document.getElementById('sink').onload = done;
document.getElementById('f').submit();
fetch(` + fmt.Sprintf("%q", target) + `, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
  body: ` + fmt.Sprintf("%q", body) + `}).then(done, done);
</script></body></html>`
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	defer attacker.Close()
	// Another site: localhost is not 127.0.0.1.
	attackerURL := strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1)

	b := newBrowser(t)
	if err := chromedp.Do(b.ctx, chromedp.Navigate(attackerURL)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.title === 'done'`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("attack page did not finish: %v\npage errors: %s", err, b.errorsText())
	}
	r := e.post("/graphql-schema", fmt.Sprintf(`{ keyspace(name: %q) { name } }`, e.ks), nil)
	if path(r.Data, "keyspace", "name") != e.ks {
		t.Fatalf("the keyspace was dropped by a foreign page: %s", r.Raw)
	}
	mu.Lock()
	defer mu.Unlock()
	var gets, posts int
	for _, s := range seen {
		if s.path != "/graphql-schema" {
			continue
		}
		// 403 is the guard's cross-site refusal (behind it, GraphQL would
		// also refuse: 405 for the GET mutation, 415 for text/plain).
		if s.status != http.StatusForbidden {
			t.Errorf("%s %s?%s was answered %d, want 403", s.method, s.path, s.query, s.status)
		}
		switch s.method {
		case "GET":
			gets++
		case "POST":
			posts++
		}
	}
	if gets < 1 || posts < 2 {
		t.Errorf("want the <img> GET and both POSTs to reach dohyo (and be refused), saw %+v", seen)
	}
}
