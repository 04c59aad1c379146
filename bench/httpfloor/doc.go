// Package httpfloor holds the two HTTP servers that show what an HTTP
// request costs below any GraphQL: net/http's server with a handler that
// only answers, and a minimal HTTP/1.1 responder that parses only the
// header block and Content-Length (not a server anyone should run; it
// shows the floor that the client and the kernel set). Both answer every
// request with the response dohyo gives `{ __typename }`.
//
// BenchmarkHTTPServerFloor runs them in process against Go's client;
// bench/gqlcql -floor runs them as processes of their own next to a
// running dohyo, so that the floor is measured as the GraphQL and CQL
// reads are (issue 21).
package httpfloor
