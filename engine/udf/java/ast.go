package java

// Expression and statement nodes. Locals are resolved to frame slots at
// parse time.

type expr interface{ eval(m *machine) (any, error) }

type stmt interface {
	exec(m *machine) (ctl, any, error)
}

// ctl is how a statement completed.
type ctl int

const (
	ctlNormal ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

type (
	litExpr   struct{ v any }
	localExpr struct {
		slot int
		name string
	}
	assignExpr struct {
		slot int
		op   string // "=" or the compound operator without '='
		t    jtype
		rhs  expr
		line int
	}
	incDecExpr struct {
		slot   int
		delta  int
		prefix bool
		t      jtype
		line   int
	}
	unaryExpr struct {
		op   string
		x    expr
		line int
	}
	binaryExpr struct {
		op   string
		x, y expr
		line int
	}
	logicalExpr struct {
		and  bool
		x, y expr
	}
	condExpr struct{ c, a, b expr }
	castExpr struct {
		t    jtype
		x    expr
		line int
	}
	callExpr struct {
		recv   expr   // nil: a static call of class
		class  string // static calls
		name   string
		args   []expr
		line   int
		ctxFun bool // a udfContext method
	}
	newExpr struct {
		k    jkind
		args []expr
		line int
	}
)

type (
	blockStmt struct{ list []stmt }
	declStmt  struct {
		slots []int
		t     jtype
		inits []expr // nil entries: no initializer
		line  int
	}
	exprStmt struct{ e expr }
	ifStmt   struct {
		cond      expr
		then, els stmt
	}
	whileStmt struct {
		cond expr
		body stmt
		do   bool
	}
	forStmt struct {
		init   []stmt
		cond   expr
		update []expr
		body   stmt
	}
	forEachStmt struct {
		slot int
		t    jtype
		coll expr
		body stmt
		line int
	}
	breakStmt    struct{}
	continueStmt struct{}
	returnStmt   struct {
		e    expr
		line int
	}
)
