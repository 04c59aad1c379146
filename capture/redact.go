package capture

import (
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// RedactRule redacts the bound values of one column, named
// keyspace.table.column. Any part may be "*"; unquoted parts are
// case-insensitive like CQL identifiers, double-quoted parts exact.
type RedactRule struct {
	Column string    `yaml:"column"`
	Action Redaction `yaml:"action"` // drop, hash or length
}

// MarshalText renders the redaction's name (for YAML and JSON).
func (r Redaction) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses "drop", "hash", "length" or "none".
func (r *Redaction) UnmarshalText(b []byte) error {
	for _, c := range []Redaction{NotRedacted, RedactDrop, RedactHash, RedactLength} {
		if strings.EqualFold(string(b), c.String()) {
			*r = c
			return nil
		}
	}
	return fmt.Errorf("capture: unknown redaction %q (want drop, hash or length)", b)
}

type compiledRule struct {
	ks, table, col string // "" matches anything ("*")
	action         Redaction
}

type ruleSet []compiledRule

func compileRules(rules []RedactRule) (ruleSet, error) {
	out := make(ruleSet, 0, len(rules))
	for i, r := range rules {
		parts, err := splitIdentPath(r.Column)
		if err != nil || len(parts) != 3 {
			return nil, fmt.Errorf("redact[%d].column: %q is not keyspace.table.column", i, r.Column)
		}
		if r.Action < RedactDrop || r.Action > RedactLength {
			return nil, fmt.Errorf("redact[%d].action: want drop, hash or length", i)
		}
		out = append(out, compiledRule{ks: parts[0], table: parts[1], col: parts[2], action: r.Action})
	}
	return out, nil
}

// splitIdentPath splits a.b."C.d" into normalised identifiers: unquoted
// parts lower-cased, quoted parts unquoted, "*" as "".
func splitIdentPath(s string) ([]string, error) {
	var parts []string
	for {
		var part string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for ; i < len(s); i++ {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i++
						continue
					}
					break
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated quote")
			}
			part, s = b.String(), s[i+1:]
		} else {
			j := strings.IndexByte(s, '.')
			if j < 0 {
				j = len(s)
			}
			part, s = strings.ToLower(s[:j]), s[j:]
			if part == "" {
				return nil, fmt.Errorf("empty name")
			}
			if part == "*" {
				part = ""
			}
		}
		parts = append(parts, part)
		if s == "" {
			return parts, nil
		}
		if s[0] != '.' {
			return nil, fmt.Errorf("expected '.'")
		}
		s = s[1:]
	}
}

func (rs ruleSet) match(ks, table, col string) Redaction {
	for _, r := range rs {
		if (r.ks == "" || r.ks == ks) && (r.table == "" || r.table == table) &&
			(col == "" || r.col == "" || r.col == col) {
			return r.action
		}
	}
	return NotRedacted
}

// forBinding returns the redaction of a marker or literal bound as b. A JSON
// row is redacted when any rule names a column of its table.
func (rs ruleSet) forBinding(b binding) Redaction {
	if !b.hasColumns() {
		return NotRedacted
	}
	if b.role == roleJSON {
		return rs.match(b.keyspace, b.table, "")
	}
	for _, c := range b.columns {
		if a := rs.match(b.keyspace, b.table, c); a != NotRedacted {
			return a
		}
	}
	return NotRedacted
}

// redactPlan is the redaction of each bound value of one statement. A nil
// plan redacts nothing.
type redactPlan struct {
	pos      []Redaction          // by marker position
	named    map[string]Redaction // by marker name (values sent with names)
	fallback Redaction            // values the statement has no marker for
	text     bool                 // the text holds redacted literals: store the fingerprint
}

func (p *redactPlan) action(i int, names []string) Redaction {
	if p == nil {
		return NotRedacted
	}
	if names != nil {
		if i < len(names) {
			if a, ok := p.named[names[i]]; ok {
				return a
			}
			if a, ok := p.named[strings.ToLower(names[i])]; ok {
				return a
			}
		}
		return p.fallback
	}
	if i < len(p.pos) {
		return p.pos[i]
	}
	return p.fallback
}

// any reports whether the plan redacts anything (then paging states, which
// embed key bytes, are not stored either).
func (p *redactPlan) any() bool { return p != nil }

// planRedaction builds the plan for a statement, or nil when no rule
// applies. A statement that does not parse is treated as sensitive: its
// values are dropped and its text replaced by its fingerprint.
func planRedaction(rs ruleSet, parsed *cql.Parsed, parseErr error, sessionKS string) *redactPlan {
	if len(rs) == 0 {
		return nil
	}
	if parseErr != nil || parsed == nil {
		return &redactPlan{fallback: RedactDrop, text: true}
	}
	bm := mapBindings(parsed, sessionKS)
	p := &redactPlan{pos: make([]Redaction, len(bm.markers)), named: map[string]Redaction{}}
	hit := false
	for i, b := range bm.markers {
		a := rs.forBinding(b)
		p.pos[i] = a
		if name := parsed.Markers[i].Name; name != "" && a > p.named[name] {
			p.named[name] = a
		}
		hit = hit || a != NotRedacted
	}
	for _, b := range bm.literals {
		if rs.forBinding(b) != NotRedacted {
			p.text, hit = true, true
		}
	}
	if !hit {
		return nil
	}
	return p
}

// statementKeyspace is the keyspace a statement addresses, for filters.
func statementKeyspace(parsed *cql.Parsed, sessionKS string) string {
	if parsed == nil {
		return sessionKS
	}
	if b, ok := parsed.Stmt.(*cql.Batch); ok && len(b.Statements) > 0 {
		return statementKeyspace(&cql.Parsed{Stmt: b.Statements[0]}, sessionKS)
	}
	if ks, ok := cql.KeyspaceOf(parsed.Stmt); ok && ks != "" {
		return ks
	}
	return sessionKS
}
