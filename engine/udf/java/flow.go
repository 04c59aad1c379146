package java

// Java's definite-return rule, simplified: a body whose end is reachable
// does not return a value ("This method must return a result of type
// T"). A statement can complete normally unless it returns, is a
// block/if-else whose parts cannot, or is a loop on a constant true
// condition with no break of its own.

func canComplete(s stmt) bool {
	switch x := s.(type) {
	case *returnStmt:
		return false
	case *blockStmt:
		for _, st := range x.list {
			if !canComplete(st) {
				return false
			}
		}
		return true
	case *ifStmt:
		return x.els == nil || canComplete(x.then) || canComplete(x.els)
	case *whileStmt:
		return !isTrue(x.cond) || hasBreak(x.body)
	case *forStmt:
		return (x.cond != nil && !isTrue(x.cond)) || hasBreak(x.body)
	}
	return true
}

func isTrue(e expr) bool {
	l, ok := e.(*litExpr)
	return ok && l.v == true
}

// hasBreak reports a break that leaves the enclosing loop (not one of a
// nested loop).
func hasBreak(s stmt) bool {
	switch x := s.(type) {
	case breakStmt:
		return true
	case *blockStmt:
		for _, st := range x.list {
			if hasBreak(st) {
				return true
			}
		}
	case *ifStmt:
		return hasBreak(x.then) || (x.els != nil && hasBreak(x.els))
	}
	return false
}

// primitiveName is the Java primitive a CQL type maps to in a RETURNS
// NULL ON NULL INPUT function ("" when it maps to a class).
func primitiveName(class string) string {
	return map[string]string{"Integer": "int", "Long": "long", "Short": "short", "Byte": "byte",
		"Float": "float", "Double": "double", "Boolean": "boolean"}[class]
}

// checkNullReturns refuses `return null;` when the return type is primitive.
func checkNullReturns(s stmt, prim string) *CompileError {
	switch x := s.(type) {
	case *returnStmt:
		if l, ok := x.e.(*litExpr); ok && l.v == nil {
			return compileErrf(x.line, "Type mismatch: cannot convert from null to %s", prim)
		}
	case *blockStmt:
		for _, st := range x.list {
			if err := checkNullReturns(st, prim); err != nil {
				return err
			}
		}
	case *ifStmt:
		if err := checkNullReturns(x.then, prim); err != nil {
			return err
		}
		if x.els != nil {
			return checkNullReturns(x.els, prim)
		}
	case *whileStmt:
		return checkNullReturns(x.body, prim)
	case *forStmt:
		return checkNullReturns(x.body, prim)
	case *forEachStmt:
		return checkNullReturns(x.body, prim)
	}
	return nil
}
