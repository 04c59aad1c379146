package graphql

import (
	"embed"
	"io/fs"
	"net/http"
)

// assets holds the playground: our index.html, playground.js and
// playground.css, and the GraphiQL and React builds vendored from npm
// (see assets/README.md). Nothing is loaded from the network.
//
//go:embed assets/index.html assets/playground.js assets/playground.css
//go:embed assets/graphiql.min.js assets/graphiql.min.css
//go:embed assets/react.production.min.js assets/react-dom.production.min.js
var assets embed.FS

// playgroundCSP keeps the page on dohyo: scripts, styles and API calls
// from the same origin only (GraphiQL needs inline styles; its fonts and
// icons are data: URLs).
const playgroundCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'self'; base-uri 'none'"

// playgroundFiles is the embedded tree and its index page.
type playgroundFiles struct {
	fs    fs.FS
	index []byte
}

func loadPlayground() (*playgroundFiles, error) {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		return nil, err
	}
	return &playgroundFiles{fs: sub, index: index}, nil
}

func (s *Server) registerPlayground(mux *http.ServeMux) {
	index := s.playground.index
	files := http.StripPrefix("/playground/assets/", http.FileServerFS(s.playground.fs))
	mux.HandleFunc("GET /playground", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", playgroundCSP)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
	mux.HandleFunc("GET /playground/assets/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/playground/assets/" || r.URL.Path == "/playground/assets/index.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}
