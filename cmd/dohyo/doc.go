// Command dohyo is the CLI: `dohyo serve` runs the proxy, `dohyo version`
// (or `dohyo --version`) prints build information, `dohyo health` probes a
// health endpoint; capture, replay, mirror and config have their own
// subcommands. One file per subcommand; only this package exits the
// process.
//
// This package parses configuration and wires the library packages
// together (serve_open.go builds the server in named steps). Backends are
// opened by their URL's scheme (backends.go); everything else about them
// is found by type assertion on the capabilities named in
// bindings/capabilities.go (roles' store, tier membership, relays, shared
// schema events), never by concrete type. liblog.go routes the libraries'
// own logging (gohbase's logrus, the standard log package) through
// serve's structured logger.
package main
