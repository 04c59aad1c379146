package cql

import "strings"

// createIndex parses CREATE [CUSTOM] INDEX (the CREATE keyword is current).
func (p *parser) createIndex() Statement {
	p.next() // CREATE
	s := &CreateIndex{}
	if p.acceptKw("custom") {
		s.Custom = true
	}
	p.expectKw("index")
	s.IfNotExists = p.acceptKws("if", "not", "exists")
	if !p.isKw("on") {
		_, s.Name = p.qualifiedName()
	}
	p.expectKw("on")
	s.Keyspace, s.Table = p.qualifiedName()
	p.expect(tLParen)
	for p.err == nil && !p.is(tRParen) {
		s.Targets = append(s.Targets, p.indexTarget())
		if !p.accept(tComma) {
			break
		}
	}
	p.expect(tRParen)
	if p.acceptKw("using") {
		s.HasUsing = true
		s.Using = p.optionText()
	}
	if p.acceptKw("with") {
		for p.err == nil {
			name := p.ident()
			if name != "options" {
				p.failAt(p.tok(), "Unrecognized property '"+name+"'")
				return nil
			}
			s.Options = p.optionMap()
			if !p.acceptKw("and") {
				break
			}
		}
	}
	return s
}

// indexTarget parses c, values(c), keys(c), entries(c) or full(c).
func (p *parser) indexTarget() IndexTarget {
	if p.tok().kind == tIdent && p.peek(1).kind == tLParen {
		fn := strings.ToLower(p.text(p.tok()))
		kinds := map[string]IndexTargetKind{"values": IndexValues, "keys": IndexKeys, "entries": IndexEntries, "full": IndexFull}
		if k, ok := kinds[fn]; ok {
			p.next()
			p.next()
			t := IndexTarget{Column: p.ident(), Kind: k}
			p.expect(tRParen)
			return t
		}
	}
	return IndexTarget{Column: p.ident()}
}

// dropIndex parses DROP INDEX [IF EXISTS] [ks.]name.
func (p *parser) dropIndex() Statement {
	p.next()
	p.next()
	s := &DropIndex{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	return s
}
