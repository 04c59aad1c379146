package cql

// This file parses INSERT, UPDATE, DELETE and BATCH.

func (p *parser) insert() Statement {
	p.next()
	p.expectKw("into")
	s := &Insert{}
	s.Keyspace, s.Table = p.qualifiedName()
	if p.acceptKw("json") {
		if p.is(tString) {
			s.JSON = p.literal()
		} else if p.isMarker() {
			s.JSON = p.marker()
		} else {
			p.noViable()
		}
		if p.acceptKw("default") {
			if !p.acceptKw("null") {
				p.expectKw("unset")
				s.DefaultUnset = true
			}
		}
	} else {
		s.Columns = p.parenIdents()
		p.expectKw("values")
		p.expect(tLParen)
		s.Values = p.terms()
		p.expect(tRParen)
	}
	// Cassandra takes IF NOT EXISTS before USING; either order is accepted.
	for i := 0; i < 2; i++ {
		if !s.IfNotExists && p.acceptKws("if", "not", "exists") {
			s.IfNotExists = true
		}
		if p.acceptKw("using") {
			p.using(&s.Using)
		}
	}
	return s
}

func (p *parser) update() Statement {
	p.next()
	s := &Update{}
	s.Keyspace, s.Table = p.qualifiedName()
	if p.acceptKw("using") {
		p.using(&s.Using)
	}
	p.expectKw("set")
	for {
		s.Set = append(s.Set, p.assignment())
		if !p.accept(tComma) {
			break
		}
	}
	p.expectKw("where")
	s.Where = p.relations()
	s.IfExists, s.If = p.ifClause()
	return s
}

func (p *parser) deleteStmt() Statement {
	p.next()
	s := &Delete{}
	if !p.isKw("from") {
		for {
			s.Targets = append(s.Targets, p.deleteTarget())
			if !p.accept(tComma) {
				break
			}
		}
	}
	p.expectKw("from")
	s.Keyspace, s.Table = p.qualifiedName()
	if p.acceptKw("using") {
		p.expectKw("timestamp")
		s.Using.Timestamp = p.intValue()
	}
	p.expectKw("where")
	s.Where = p.relations()
	s.IfExists, s.If = p.ifClause()
	return s
}

// deleteTarget parses col, col[key] or col.field.
func (p *parser) deleteTarget() DeleteTarget {
	t := DeleteTarget{Column: p.ident()}
	if p.accept(tLBracket) {
		t.Key = p.term()
		p.expect(tRBracket)
	} else if p.accept(tDot) {
		t.Field = p.ident()
	}
	return t
}

func (p *parser) batch() Statement {
	p.next()
	s := &Batch{}
	if p.acceptKw("unlogged") {
		s.Type = BatchUnlogged
	} else if p.acceptKw("counter") {
		s.Type = BatchCounter
	}
	p.expectKw("batch")
	if p.acceptKw("using") {
		p.using(&s.Using)
	}
	for p.err == nil && !p.isKw("apply") {
		switch {
		case p.isKw("insert"):
			s.Statements = append(s.Statements, p.insert())
		case p.isKw("update"):
			s.Statements = append(s.Statements, p.update())
		case p.isKw("delete"):
			s.Statements = append(s.Statements, p.deleteStmt())
		default:
			p.noViable()
		}
		p.accept(tSemi)
	}
	p.expectKw("apply")
	p.expectKw("batch")
	return s
}

// using parses TTL x AND TIMESTAMP y, in either order, after USING.
func (p *parser) using(u *Using) {
	for {
		switch {
		case p.acceptKw("ttl"):
			u.TTL = p.intValue()
		case p.acceptKw("timestamp"):
			u.Timestamp = p.intValue()
		default:
			p.noViable()
			return
		}
		if !p.acceptKw("and") {
			return
		}
	}
}

// assignment parses one SET item.
func (p *parser) assignment() Assignment {
	a := Assignment{Column: p.ident()}
	switch {
	case p.accept(tLBracket):
		a.Op = AssignElement
		a.Key = p.term()
		p.expect(tRBracket)
		p.expect(tEq)
		a.Value = p.term()
	case p.accept(tDot):
		a.Op = AssignField
		a.Field = p.ident()
		p.expect(tEq)
		a.Value = p.term()
	case p.accept(tPlusEq):
		a.Op, a.Value = AssignAddTo, p.term()
	case p.accept(tMinusEq):
		a.Op, a.Value = AssignRemoveFrom, p.term()
	default:
		p.expect(tEq)
		p.assignValue(&a)
	}
	return a
}

// assignValue parses the right side of `c = ...`: v, c + v, c - v, v + c,
// or c -1 (a negative integer lexed with its sign, as Cassandra allows).
func (p *parser) assignValue(a *Assignment) {
	if t := p.tok(); p.isIdentTok(t) && !p.isFuncCallStart() {
		if p.ident() != a.Column {
			p.failAt(t, "only expressions of the form X = X + <value> are supported")
			return
		}
		switch {
		case p.accept(tPlus):
			a.Op, a.Value = AssignAdd, p.term()
		case p.accept(tMinus):
			a.Op, a.Value = AssignRemove, p.term()
		case p.is(tInt) && p.text(p.tok())[0] == '-':
			a.Op, a.Value = AssignAdd, p.literal()
		default:
			p.noViable()
		}
		return
	}
	v := p.term()
	if !p.accept(tPlus) {
		a.Op, a.Value = AssignSet, v
		return
	}
	if t := p.tok(); p.ident() != a.Column && p.err == nil {
		p.failAt(t, "only expressions of the form X = <value> + X are supported")
	}
	a.Op, a.Value = AssignPrepend, v
}

// ifClause parses an optional IF EXISTS or IF condition (AND condition)*.
func (p *parser) ifClause() (exists bool, conds []Condition) {
	if !p.acceptKw("if") {
		return false, nil
	}
	if p.acceptKw("exists") {
		return true, nil
	}
	for {
		conds = append(conds, p.condition())
		if !p.acceptKw("and") {
			return false, conds
		}
	}
}

// condition parses col op v, col[k] op v, col.f op v, or col IN (...).
func (p *parser) condition() Condition {
	c := Condition{Column: p.ident()}
	if p.accept(tLBracket) {
		c.Key = p.term()
		p.expect(tRBracket)
	} else if p.accept(tDot) {
		c.Field = p.ident()
	}
	if p.acceptKw("in") {
		c.Op = OpIn
		c.In, c.Value = p.inValues()
		return c
	}
	c.Op = p.compareOp()
	c.Value = p.term()
	return c
}
