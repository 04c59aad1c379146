// Command dohyo is the CLI: `dohyo serve` runs the proxy, `dohyo version`
// (or `dohyo --version`) prints build information, `dohyo health` probes a
// health endpoint. One file per subcommand; main wires everything
// explicitly, and only this package exits the process. liblog.go routes
// the libraries' own logging (gohbase's logrus, the standard log package)
// through serve's structured logger.
package main
