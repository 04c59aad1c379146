// Package proxy is the coordinator: the merged catalog, the routing decision
// per keyspace, client sessions, the prepared-statement registry and the Tap
// seam through which capture sees every request.
package proxy
