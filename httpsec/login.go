package httpsec

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// maxAuthBody bounds a POST /v1/auth body.
const maxAuthBody = 16 << 10

// serveAuth is Stargate's POST /v1/auth: {"username","password"} answers
// 201 {"authToken": ...} (and "expires", RFC 3339).
func (g *Guard) serveAuth(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) {
		g.log.Debug("http auth refused", "status", status, "remote", r.RemoteAddr, "reason", msg)
		writeJSON(w, status, map[string]any{"description": msg, "code": status})
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(http.StatusMethodNotAllowed, "Use POST with a JSON body {\"username\", \"password\"}")
		return
	}
	if g.cfg.Passwords == nil {
		fail(http.StatusNotFound, "Authentication is off: requests need no token")
		return
	}
	ip := clientIP(r.RemoteAddr)
	if d := g.logins.wait(ip); d > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
		fail(http.StatusTooManyRequests, "Too many failed logins from this address: retry later")
		return
	}
	var creds struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAuthBody+1))
	if err != nil || len(body) > maxAuthBody {
		fail(http.StatusRequestEntityTooLarge, "Could not read the request body")
		return
	}
	if err := json.Unmarshal(body, &creds); err != nil {
		fail(http.StatusBadRequest, "Must provide a JSON body {\"username\", \"password\"}: "+err.Error())
		return
	}
	if creds.Username == "" || creds.Password == "" {
		fail(http.StatusBadRequest, "Must provide username and password")
		return
	}
	if !g.cfg.Passwords.CheckPassword(creds.Username, creds.Password) {
		g.logins.failed(ip)
		g.log.Info("http authentication failed", "user", creds.Username, "remote", r.RemoteAddr)
		fail(http.StatusUnauthorized, "Failed to create token: Invalid credentials provided")
		return
	}
	g.logins.succeeded(ip)
	token, expires := g.cfg.Tokens.Issue(creds.Username)
	writeJSON(w, http.StatusCreated, map[string]any{"authToken": token, "expires": expires.UTC().Format(time.RFC3339)})
}
