// Package control switches capture on and off while dohyo serves: a Switch
// is the coordinator's tap, forwarding observations to the current capture
// writer (one atomic load when none runs), and it serves the admin
// endpoints GET /admin/capture, POST /admin/capture/start[?dir=DIR] (DIR
// must lie under the configured root, symbolic links followed) and POST
// /admin/capture/stop. Totals stay monotonic across stops and starts.
package control
