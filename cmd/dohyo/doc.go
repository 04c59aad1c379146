// Command dohyo is the CLI: `dohyo serve` runs the proxy, `dohyo version`
// prints build information. One file per subcommand; main wires everything
// explicitly, and only this package exits the process.
package main
