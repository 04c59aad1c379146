package cql

import (
	"fmt"
	"strings"
)

// This file parses CREATE/ALTER/DROP MATERIALIZED VIEW.

// createView parses CREATE MATERIALIZED VIEW (the current token is CREATE).
func (p *parser) createView() Statement {
	p.next()
	p.next()
	p.next()
	s := &CreateView{IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expectKw("as")
	p.expectKw("select")
	if p.accept(tStar) {
		s.Star = true
	} else {
		for p.err == nil {
			sel := p.selector()
			switch {
			case sel == nil:
			case sel.Alias != "":
				s.Aliased = true
			case sel.Kind != SelColumn:
				s.NonColumn = true
			default:
				s.Columns = append(s.Columns, sel.Column)
			}
			if !p.accept(tComma) {
				break
			}
		}
	}
	p.expectKw("from")
	s.BaseKeyspace, s.Base = p.qualifiedName()
	nmarkers := len(p.markers)
	if p.acceptKw("where") {
		for p.err == nil {
			start := p.pos
			r := p.relation()
			s.Where = append(s.Where, r)
			s.WhereText = append(s.WhereText, p.relationText(r, start))
			s.HasToken = s.HasToken || r.Token
			if !p.acceptKw("and") {
				break
			}
		}
	}
	s.HasMarkers = len(p.markers) > nmarkers
	if p.acceptKws("primary", "key") {
		s.PrimaryKeyDeclared = true
		s.PartitionKey, s.Clustering = p.primaryKey()
	} else {
		p.expectKw("primary")
	}
	if p.acceptKw("with") {
		ct := &CreateTable{}
		p.tableOptions(ct)
		s.ClusteringOrder, s.CompactStorage, s.Options = ct.ClusteringOrder, ct.CompactStorage, ct.Options
	}
	return s
}

// relationText renders a single-column relation parsed from tokens
// [start, p.pos) as Cassandra prints it in a view's where_clause: the
// column as an identifier, the operator, the value's tokens.
func (p *parser) relationText(r Relation, start int) string {
	var b strings.Builder
	if len(r.Columns) == 1 && !r.Token {
		b.WriteString(QuoteIdent(r.Columns[0]))
	} else {
		b.WriteString("(" + strings.Join(r.Columns, ", ") + ")")
	}
	b.WriteString(" " + r.Op.String())
	if r.Op == OpIsNotNull {
		return b.String()
	}
	// Skip the column name and operator tokens: the value starts after the
	// first token that ends the operator.
	i := start
	for i < p.pos && !p.isOperatorTok(&p.toks[i], r.Op) {
		i++
	}
	i++
	b.WriteByte(' ')
	first, prev := true, tokKind(0)
	for ; i < p.pos; i++ {
		t := &p.toks[i]
		if !first && t.kind != tComma && t.kind != tRParen && prev != tLParen && t.kind != tRBracket && prev != tLBracket {
			b.WriteByte(' ')
		}
		b.WriteString(p.text(t))
		first, prev = false, t.kind
	}
	return b.String()
}

// isOperatorTok reports whether t is the (last) token of operator op.
func (p *parser) isOperatorTok(t *token, op RelOp) bool {
	switch op {
	case OpIn:
		return p.isWord(t, "in")
	case OpContains:
		return p.isWord(t, "contains")
	case OpContainsKey:
		return p.isWord(t, "key")
	case OpLike:
		return p.isWord(t, "like")
	}
	s := p.text(t)
	return s == op.String()
}

// alterView parses ALTER MATERIALIZED VIEW.
func (p *parser) alterView() Statement {
	p.next()
	p.next()
	p.next()
	s := &AlterView{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expectKw("with")
	for p.err == nil {
		s.Options = append(s.Options, p.option())
		if !p.acceptKw("and") {
			break
		}
	}
	return s
}

// dropView parses DROP MATERIALIZED VIEW.
func (p *parser) dropView() Statement {
	p.next()
	p.next()
	p.next()
	s := &DropView{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	return s
}

// RenameInWhere rewrites a view's where_clause (relations joined by AND, as
// CreateView.WhereText renders them) with columns renamed, as Cassandra
// shows it after ALTER TABLE ... RENAME of its base.
func RenameInWhere(where string, rename map[string]string) (string, error) {
	p, err := newParser(where)
	if err != nil {
		return "", err
	}
	var parts []string
	for p.err == nil && !p.is(tEOF) {
		start := p.pos
		r := p.relation()
		for i, c := range r.Columns {
			if n, ok := rename[c]; ok {
				r.Columns[i] = n
			}
		}
		parts = append(parts, p.relationText(r, start))
		if !p.acceptKw("and") {
			break
		}
	}
	if p.err != nil {
		return "", p.err
	}
	if !p.is(tEOF) {
		return "", fmt.Errorf("cql: unexpected input after view where clause %q", where)
	}
	return strings.Join(parts, " AND "), nil
}
