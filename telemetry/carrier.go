package telemetry

// PayloadCarrier reads W3C trace context (traceparent, tracestate) from a
// CQL custom payload, whose values are bytes.
type PayloadCarrier map[string][]byte

// Get returns the value of key ("" if absent).
func (p PayloadCarrier) Get(key string) string { return string(p[key]) }

// Set stores value under key.
func (p PayloadCarrier) Set(key, value string) { p[key] = []byte(value) }

// Keys lists the payload's keys.
func (p PayloadCarrier) Keys() []string {
	out := make([]string, 0, len(p))
	for k := range p {
		out = append(out, k)
	}
	return out
}
