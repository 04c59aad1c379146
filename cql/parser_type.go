package cql

// This file parses user-defined type DDL: CREATE, ALTER and DROP TYPE.

// createType parses CREATE TYPE [IF NOT EXISTS] name '(' field type (',' field type)* ')'.
func (p *parser) createType() Statement {
	p.next()
	p.next()
	s := &CreateType{IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	p.expect(tLParen)
	for p.err == nil {
		s.Fields = append(s.Fields, FieldDef{Name: p.ident(), Type: p.typ()})
		if !p.accept(tComma) {
			break
		}
	}
	p.expect(tRParen)
	return s
}

// alterType parses ALTER TYPE [IF EXISTS] name (ADD | RENAME | ALTER) ...
func (p *parser) alterType() Statement {
	p.next()
	p.next()
	s := &AlterUserType{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	switch {
	case p.acceptKw("add"):
		s.Op = AlterTypeAdd
		s.IfFieldExists = p.acceptKws("if", "not", "exists")
		s.Add = FieldDef{Name: p.ident(), Type: p.typ()}
	case p.acceptKw("rename"):
		s.Op = AlterTypeRename
		s.IfFieldExists = p.acceptKws("if", "exists")
		for p.err == nil {
			s.RenameFrom = append(s.RenameFrom, p.ident())
			p.expectKw("to")
			s.RenameTo = append(s.RenameTo, p.ident())
			if !p.acceptKw("and") {
				break
			}
		}
	case p.acceptKw("alter"):
		s.Op = AlterTypeAlter
		s.Add.Name = p.ident()
		p.expectKw("type")
		s.Add.Type = p.typ()
	default:
		p.noViable()
	}
	return s
}

// dropType parses DROP TYPE [IF EXISTS] name.
func (p *parser) dropType() Statement {
	p.next()
	p.next()
	s := &DropType{IfExists: p.acceptKws("if", "exists")}
	s.Keyspace, s.Name = p.qualifiedName()
	return s
}

// vectorType parses vector<type, n>. dohyo has no vector type yet: the
// statement is reported as Unsupported naming it (a blob stands in so the
// rest of the statement parses).
func (p *parser) vectorType() *Type {
	start := p.tok()
	p.next()
	p.expect(tLt)
	p.typ()
	p.expect(tComma)
	if !p.is(tInt) {
		p.mismatch("an integer dimension")
	}
	p.next()
	p.expect(tGt)
	if p.err == nil && p.unsup == "" {
		p.unsup = "the vector type (" + p.src[start.pos:p.toks[p.pos-1].end] + ")"
	}
	return Scalar(KindBlob)
}
