package graphql

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// scanBody decodes the JSON request bodies clients send — an object of
// "query", "variables" and "operationName", other members ignored — in one
// pass without encoding/json's reflection, decoder and scanner state.
//
// It decodes a strict subset of what decodeJSONRequest (encoding/json)
// accepts, to the same gqlRequest (variables normalized by normalizeJSON
// as there), and returns false for anything else without changing req:
// malformed JSON, a member of the wrong type, a key spelled with escapes,
// non-ASCII characters or another case (encoding/json matches struct
// fields case-insensitively), a field twice (encoding/json merges), a
// \u escape of a surrogate, invalid UTF-8 (replaced by encoding/json),
// nesting deeper than maxScanDepth. The caller then decodes with
// decodeJSONRequest, so every error message comes from encoding/json.
// FuzzScanBody checks the two against each other.
func scanBody(body []byte, req *gqlRequest) bool {
	s := bodyScanner{b: body}
	s.ws()
	if !s.byte('{') {
		return false
	}
	var r gqlRequest
	var seen [3]bool // query, variables, operationName
	if !members(&s, s.key, func(key []byte) bool { return s.member(key, &r, &seen) }) {
		return false
	}
	s.ws()
	if s.i != len(s.b) {
		return false
	}
	*req = r
	return true
}

// maxScanDepth bounds the nesting scanBody decodes (encoding/json's own
// bound is 10000; deeper bodies go to it).
const maxScanDepth = 100

// bodyScanner reads JSON from b at i; its methods return false (or !ok)
// where the input is not in scanBody's subset.
type bodyScanner struct {
	b     []byte
	i     int
	depth int
}

// ws skips JSON whitespace.
func (s *bodyScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte consumes c when it is next.
func (s *bodyScanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// member decodes the value of the request object's member key into r.
func (s *bodyScanner) member(key []byte, r *gqlRequest, seen *[3]bool) bool {
	field := -1
	for i, name := range [...]string{"query", "variables", "operationName"} {
		if string(key) == name {
			field = i
		} else if strings.EqualFold(string(key), name) {
			return false // encoding/json would take it for the field
		}
	}
	if field < 0 { // ignored, as encoding/json ignores it: still valid JSON
		_, ok := s.value()
		return ok
	}
	if seen[field] {
		return false
	}
	seen[field] = true
	if s.literal("null") {
		return true // leaves the field as it is, as encoding/json does
	}
	switch field {
	case 1:
		if s.i >= len(s.b) || s.b[s.i] != '{' {
			return false
		}
		v, ok := s.value()
		if !ok {
			return false
		}
		r.Variables = v.(map[string]any)
		return true
	default:
		str, ok := s.quoted()
		if !ok {
			return false
		}
		if field == 0 {
			r.Query = str
		} else {
			r.OperationName = str
		}
		return true
	}
}

// key reads an object key that is plain ASCII without escapes (the
// request object's keys are compared as bytes, without allocating).
func (s *bodyScanner) key() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c < 0x20 || c == '\\' || c >= utf8.RuneSelf:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// value decodes any JSON value as encoding/json decodes it into an any
// with UseNumber, then normalizeJSON: objects map[string]any (the last of
// duplicate keys wins), arrays []any, strings, bools, nil, numbers int64
// (or what normalizeJSON makes of a json.Number).
func (s *bodyScanner) value() (any, bool) {
	if s.i >= len(s.b) {
		return nil, false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		return s.string()
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	}
	return nil, false
}

// literal consumes word when it is next.
func (s *bodyScanner) literal(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

func (s *bodyScanner) object() (any, bool) {
	if s.depth++; s.depth > maxScanDepth {
		return nil, false
	}
	s.i++ // '{'
	m := map[string]any{}
	ok := members(s, s.quoted, func(k string) bool {
		v, ok := s.value()
		m[k] = v
		return ok
	})
	if !ok {
		return nil, false
	}
	s.depth--
	return m, true
}

func (s *bodyScanner) array() (any, bool) {
	if s.depth++; s.depth > maxScanDepth {
		return nil, false
	}
	s.i++ // '['
	a := []any{}
	ok := s.items(']', func() bool {
		v, ok := s.value()
		a = append(a, v)
		return ok
	})
	if !ok {
		return nil, false
	}
	s.depth--
	return a, true
}

// members reads an object's members after its '{', up to and including
// its '}': each name by name, then value after the ':'.
func members[K any](s *bodyScanner, name func() (K, bool), value func(name K) bool) bool {
	return s.items('}', func() bool {
		k, ok := name()
		if !ok {
			return false
		}
		s.ws()
		if !s.byte(':') {
			return false
		}
		s.ws()
		return value(k)
	})
}

// quoted reads a string when one is next (a member name of a variables
// object, the request's query and operationName).
func (s *bodyScanner) quoted() (string, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	return s.string()
}

// items reads the comma-separated items of an object or array after its
// opening byte, up to and including closing, each by item (called at the
// item's first byte, white space skipped).
func (s *bodyScanner) items(closing byte, item func() bool) bool {
	s.ws()
	if s.byte(closing) {
		return true
	}
	for {
		s.ws()
		if !item() {
			return false
		}
		s.ws()
		if s.byte(closing) {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// string reads a string at its opening quote: valid UTF-8, escapes but
// no \u escape of a surrogate (encoding/json's pairing and replacement of
// those is left to it).
func (s *bodyScanner) string() (string, bool) {
	s.i++ // '"'
	start := s.i
	escaped, ascii := false, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(raw) {
				return "", false
			}
			if !escaped {
				return string(raw), true
			}
			return unescape(raw), true
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				return "", false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				r, ok := hex4(s.b[s.i+2:])
				if !ok || (0xD800 <= r && r < 0xE000) {
					return "", false
				}
				s.i += 5
			default:
				return "", false
			}
		}
		s.i++
	}
	return "", false
}

// hex4 decodes the 4 hex digits a \u escape starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unescape decodes the escapes of a string's raw text, which string has
// checked.
func unescape(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(raw[i+1:])
			out = utf8.AppendRune(out, r)
			i += 4
		default: // '"', '\\', '/'
			out = append(out, raw[i])
		}
	}
	return string(out)
}

// number reads a JSON number: an integer of up to 18 digits becomes its
// int64 directly, anything else what normalizeJSON makes of its
// json.Number.
func (s *bodyScanner) number() (any, bool) {
	start := s.i
	s.byte('-')
	digits := s.i
	switch {
	case s.byte('0'):
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.skipDigits()
	default:
		return nil, false
	}
	intEnd := s.i
	if s.byte('.') {
		if !s.skipDigits() {
			return nil, false
		}
	}
	if s.byte('e') || s.byte('E') {
		if !s.byte('+') {
			s.byte('-')
		}
		if !s.skipDigits() {
			return nil, false
		}
	}
	if s.i == intEnd && intEnd-digits <= 18 {
		var n int64
		for _, c := range s.b[digits:intEnd] {
			n = n*10 + int64(c-'0')
		}
		if digits > start {
			n = -n
		}
		return n, true
	}
	return normalizeJSON(json.Number(s.b[start:s.i])), true
}

// skipDigits skips decimal digits, telling whether there was one.
func (s *bodyScanner) skipDigits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
