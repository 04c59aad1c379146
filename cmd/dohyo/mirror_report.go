package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/replay"
)

// newMirrorReportCmd is `dohyo mirror report`: a running dohyo's live
// comparison of the last window, as a replay report file.
func newMirrorReportCmd() *cobra.Command {
	var httpURL, out, token string
	var window time.Duration
	cmd := &cobra.Command{
		Use:   "report --http http://HOST:PORT [--window 10m] [--out report.html|.json|.txt]",
		Short: "Write a running dohyo's live mirroring comparison (primary vs each mirror) as a replay report",
		Long: `Report fetches GET /admin/mirror/report from a dohyo serve running with
--mirror and writes it in the replay report's formats: the verdict, figures
per statement class, errors and mismatches of each mirror against the
primary, each minute of the window a round (at most the last hour, which
is what dohyo keeps). The format follows --out's extension (.json, .html,
anything else: text); without --out, text on stdout. With HTTP
authentication on, pass an admin's token (--token or DOHYO_TOKEN, from
POST /v1/auth).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if httpURL == "" {
				return errors.New("--http is required (the dohyo serve HTTP address, e.g. http://127.0.0.1:8080)")
			}
			format := "text"
			switch strings.ToLower(filepath.Ext(out)) {
			case ".json":
				format = "json"
			case ".html", ".htm":
				format = "html"
			}
			q := url.Values{"format": {"json"}}
			if window > 0 {
				q.Set("window", window.String())
			}
			req, err := http.NewRequestWithContext(cmd.Context(), http.MethodGet,
				strings.TrimRight(httpURL, "/")+"/admin/mirror/report?"+q.Encode(), nil)
			if err != nil {
				return err
			}
			if token == "" {
				token = os.Getenv("DOHYO_TOKEN")
			}
			if token != "" {
				req.Header.Set(httpsec.TokenHeader, token)
			}
			res, err := (&http.Client{Timeout: time.Minute}).Do(req)
			if err != nil {
				return fmt.Errorf("mirror report: %w", err)
			}
			defer res.Body.Close()
			body, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
			if err != nil {
				return fmt.Errorf("mirror report: %w", err)
			}
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("mirror report: %s: %s", res.Status, strings.TrimSpace(string(body)))
			}
			rep, err := replay.ReadReport(bytes.NewReader(body))
			if err != nil {
				return fmt.Errorf("mirror report: %w", err)
			}
			w := cmd.OutOrStdout()
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			return mirror.WriteReport(w, rep, format)
		},
	}
	cmd.Flags().StringVar(&httpURL, "http", "", "dohyo serve's HTTP address (http://HOST:PORT)")
	cmd.Flags().DurationVar(&window, "window", 0, "how far back (up to 1h; default: the whole hour kept)")
	cmd.Flags().StringVar(&out, "out", "", "file to write (.json, .html or text); default: text on stdout")
	cmd.Flags().StringVar(&token, "token", "", "an admin's HTTP token when authentication is on (default $DOHYO_TOKEN)")
	return cmd
}
