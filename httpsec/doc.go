// Package httpsec guards dohyo's HTTP listener: Stargate's token flow
// (POST /v1/auth with a user name and password answers a token, sent back
// as X-Cassandra-Token or Authorization: Bearer), the identity of each
// request in its context, and the browser and resource protections every
// HTTP request passes first: Host check (DNS rebinding), Origin and
// Sec-Fetch-Site checks (CSRF), CORS only for configured origins, an
// in-flight limit answered 503, a body size limit and a deadline.
package httpsec
