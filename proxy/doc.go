// Package proxy is the coordinator: the merged catalog, the routing decision
// per keyspace, client sessions, the prepared-statement registry and the Tap
// seam through which capture sees every request.
//
// Every request walks one pipeline here, whichever backend serves it: it
// is parsed (bounded cache), routed, authorised, budgeted, stamped and
// observed (Session.observation builds every Tap observation), and its
// last hop is a backend capability: bindings.Backend's Execute/Batch for
// executed keyspaces, or a bindings.FrameRelayer for keyspaces whose
// server speaks CQL itself (Session.RouteFrame, frameroute.go, decides
// which; the CQL server then hands the frame over).
package proxy
