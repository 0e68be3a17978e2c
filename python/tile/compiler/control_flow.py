"""Control flow on runtime values: `if` becomes `scf.if`, `for` over a
range `scf.for` (`tl.static_range` unrolls), `while` `scf.while`. The
variables a construct assigns are carried through it as the op's results,
one type on every path. Compile-time conditions pick a branch in Python.

A mixin of the code generator (tile.compiler.code_generator.CodeGenerator),
whose visitor, scope and builder it uses."""

import ast
import builtins

from tile.compiler.values import is_runtime as _is_runtime
from tile.compiler.values import python_value as _py
from tile.language import core as tl
from tile.language import dtypes as d
from tile.language import semantic as sem


def assigned_names(stmts):
    """Names stored to anywhere in `stmts` (in source order, no repeats)."""
    names = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                if node.id not in names:
                    names.append(node.id)
    return names


# The scope key of the k-th value an `if` returns (not a Python name).
_RETURN_SLOT = "return value %d"


def _describe(name):
    if name.startswith("return value "):
        return "the %s" % name
    return "variable '%s'" % name


def _reject_return_in_loop(self_, body):
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Return):
                raise self_.error(n, "`return` inside a loop is not supported "
                                  "(as in Triton): leave the loop with a flag "
                                  "and return after it")


class ControlFlow:
    # ----------------------------------------------------------------- if
    def _lift_for_merge(self, a, b_):
        """Two versions of a variable from two branches, as Values of one type."""
        b = self.builder
        av, bv = _py(a), _py(b_)
        if _is_runtime(av) and not _is_runtime(bv):
            bv = tl.tensor(sem.cast(b, sem.lift(b, bv, av.dtype), av.dtype))
        elif _is_runtime(bv) and not _is_runtime(av):
            av = tl.tensor(sem.cast(b, sem.lift(b, av, bv.dtype), bv.dtype))
        elif not _is_runtime(av):
            av = tl.tensor(sem.lift(b, av))
            bv = tl.tensor(sem.cast(b, sem.lift(b, bv, av.dtype), av.dtype))
        return av, bv

    def visit_If(self, node):
        cond = self.visit(node.test)
        if not _is_runtime(cond):
            self.visit_block(node.body if _py(cond) else node.orelse)
            return
        if cond.type.is_block():
            raise self.error(node.test, "an `if` condition must be a scalar, got a "
                             "%s tensor; use tl.where for blocks" %
                             list(cond.type.shape))
        b = self.builder
        c = sem.cast(b, cond.handle, d.int1)
        before = dict(self.scope)
        branches = []
        for body in (node.body, node.orelse):
            self.scope = dict(before)
            self.returns = None
            lines = []
            with b.capture(lines):
                self.visit_block(body)
            branches.append((lines, self.scope, self.returns))
        self.scope = before
        (then_lines, then_scope, then_ret), (else_lines, else_scope, else_ret) = branches
        names = [n for n in assigned_names(node.body + node.orelse)
                 if n in then_scope and n in else_scope and
                 (then_scope[n] is not before.get(n) or
                  else_scope[n] is not before.get(n))]
        returned = self._returned_values(node, then_ret, else_ret)
        for k in range(returned):
            # Returned values merge as variables no Python name can clash with.
            names.append(_RETURN_SLOT % k)
            then_scope[names[-1]] = then_ret[k]
            else_scope[names[-1]] = else_ret[k]
        # Names of compile-time values identical in both branches need no
        # yield; everything else is merged into results.
        merged = []
        for n in names:
            tv, ev = then_scope[n], else_scope[n]
            if not _is_runtime(_py(tv)) and not _is_runtime(_py(ev)) and _py(tv) == _py(ev):
                self.scope[n] = tv
                continue
            merged.append(n)
        then_vals, else_vals = [], []
        for n in merged:
            tv, ev = then_scope[n], else_scope[n]
            if not isinstance(_py(tv), (tl.tensor, int, float, bool)) or \
                    not isinstance(_py(ev), (tl.tensor, int, float, bool)):
                raise self.error(node, "%s must hold a value in both "
                                 "branches of this `if`" % _describe(n))
            with b.capture(then_lines):
                tv2, _ = self._lift_for_merge(tv, ev)
            with b.capture(else_lines):
                _, ev2 = self._lift_for_merge(tv, ev)
            if tv2.type != ev2.type:
                raise self.error(node, "%s has type %r in one branch and "
                                 "%r in the other" % (_describe(n), tv2.type, ev2.type))
            then_vals.append(tv2)
            else_vals.append(ev2)
        decl, results = b.results([v.type for v in then_vals])
        types = ", ".join(v.type.to_ir() for v in then_vals)
        if merged:
            header = "%s = scf.if %s -> (%s) {" % (decl, c.name, types)
        else:
            header = "scf.if %s {" % c.name
        b.emit(header, with_loc=False)
        b.emit_lines(then_lines)
        if merged:
            b.emit("  scf.yield %s : %s" % (", ".join(v.handle.name for v in then_vals),
                                          types))
        if merged or else_lines:
            b.emit("} else {", with_loc=False)
            b.emit_lines(else_lines)
            if merged:
                b.emit("  scf.yield %s : %s" % (", ".join(v.handle.name for v in else_vals),
                                              types))
        b.emit("}")
        self._rebind(merged, results)
        if then_ret is not None or else_ret is not None:
            self.returns = [self.scope.pop(_RETURN_SLOT % k)
                            for k in range(returned)]

    def _returned_values(self, node, then_ret, else_ret):
        """How many values both branches of an `if` return (after
        visit_block's rewrite a branch returns iff its path ends there)."""
        # Falling off the end returns nothing, like a bare `return`.
        then_ret = [] if then_ret is None else then_ret
        else_ret = [] if else_ret is None else else_ret
        if len(then_ret) != len(else_ret):
            raise self.error(node, "every path through this `if` must return, "
                             "and return as many values: a path that falls "
                             "off the end of the function would return None")
        return len(then_ret)

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not _is_runtime(cond):
            return self.visit(node.body if _py(cond) else node.orelse)
        if cond.type.is_block():
            # Python would ask the block for one truth value; an elementwise
            # select is tl.where's job, not a silent reading of `a if c else b`.
            raise self.error(node.test, "a conditional expression needs a scalar "
                             "condition, got a %s tensor; use tl.where for blocks"
                             % list(cond.type.shape))
        return tl.where(cond, self.visit(node.body), self.visit(node.orelse))

    # ---------------------------------------------------------------- loops
    def _carried(self, body):
        """Variables a loop body assigns that exist before the loop, lifted to
        runtime values (a Python int counter becomes an i32)."""
        carried = []
        for n in assigned_names(body):
            if n not in self.scope:
                continue
            v = _py(self.scope[n])
            if isinstance(v, tl.tensor):
                carried.append((n, v))
            elif isinstance(v, (bool, int, float)):
                carried.append((n, tl.tensor(sem.lift(self.builder, v))))
        return carried

    def _loop_yields(self, node, carried):
        """The values a loop body ends with for its carried variables, which
        must keep the type they entered with."""
        b = self.builder
        yields = []
        for n, init in carried:
            v = _py(self.scope[n])
            if not isinstance(v, tl.tensor):
                v = tl.tensor(sem.cast(b, sem.lift(b, v, init.dtype), init.dtype))
            if v.type != init.type:
                raise self.error(node, "loop-carried variable '%s' changes type "
                                 "from %r to %r in the loop body" %
                                 (n, init.type, v.type))
            yields.append(v.handle)
        return yields

    def visit_For(self, node):
        _reject_return_in_loop(self, node.body)
        it = self.visit(node.iter)
        if node.orelse:
            raise self.error(node, "for/else is not supported in tile kernels")
        if isinstance(it, tl.static_range):
            for i in it.range:
                self._assign(node.target, tl.constexpr(i))
                self.visit_block(node.body)
            return
        if isinstance(it, builtins.range):
            it = tl.range(it.start, it.stop, it.step)
        if not isinstance(it, tl.range):
            raise self.error(node.iter, "tile kernels can only loop over range(), "
                             "tl.range() and tl.static_range()")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a name")
        b = self.builder
        bounds = [_py(x) for x in (it.start, it.end, it.step)]
        if isinstance(bounds[2], int) and bounds[2] == 0:
            raise self.error(node.iter, "the step of a range must not be zero")
        if isinstance(bounds[2], int) and bounds[2] < 0:
            raise self.error(node.iter, "ranges with a negative step are not "
                             "supported yet")
        ty = d.int32
        for x in bounds:
            if isinstance(x, tl.tensor):
                if x.type.is_block() or not x.dtype.is_int():
                    raise self.error(node.iter, "range bounds must be integer "
                                     "scalars, got %r" % (x.type,))
                ty = sem.integer_promote(ty, x.dtype)
            elif not isinstance(x, int):
                raise self.error(node.iter, "range bounds must be integers")
        lb, ub, step = (sem.cast(b, sem.lift(b, x, ty), ty) if not isinstance(x, tl.tensor)
                        else sem.cast(b, x.handle, ty) for x in bounds)
        carried = self._carried(node.body)
        iv = b.fresh(ty)
        args = [b.fresh(v.type) for _, v in carried]
        before = dict(self.scope)
        self.scope[node.target.id] = tl.tensor(iv)
        for (n, _), a in zip(carried, args):
            self.scope[n] = tl.tensor(a)
        lines = []
        with b.capture(lines):
            self.visit_block(node.body)
            yields = self._loop_yields(node, carried)
            if yields:
                b.emit("scf.yield %s : %s" % (", ".join(y.name for y in yields),
                                              ", ".join(y.type.to_ir() for y in yields)))
        self.scope = before
        decl, results = b.results([v.type for _, v in carried])
        head = "scf.for %s = %s to %s step %s" % (iv.name, lb.name, ub.name, step.name)
        if carried:
            head = "%s = %s iter_args(%s) -> (%s)" % (
                decl, head, ", ".join("%s = %s" % (a.name, v.handle.name)
                                for a, (_, v) in zip(args, carried)),
                ", ".join(a.type.to_ir() for a in args))
        b.emit("%s : %s {" % (head, ty.to_ir()), with_loc=False)
        b.emit_lines(lines)
        attrs = []
        stages = _py(it.num_stages)
        if stages is not None:
            if not isinstance(stages, int) or stages < 1:
                raise self.error(node.iter, "num_stages must be a positive "
                                 "constexpr integer, got %r" % (stages,))
            attrs.append("tile.num_stages = %d : i32" % stages)
        specialize = _py(getattr(it, "warp_specialize", False))
        if not isinstance(specialize, bool):
            raise self.error(node.iter, "warp_specialize must be a constexpr "
                             "bool, got %r" % (specialize,))
        if specialize:
            attrs.append("tile.warp_specialize")
        b.emit("} {%s}" % ", ".join(attrs) if attrs else "}")
        self._rebind([n for n, _ in carried], results)

    def visit_While(self, node):
        _reject_return_in_loop(self, node.body)
        if node.orelse:
            raise self.error(node, "while/else is not supported in tile kernels")
        b = self.builder
        carried = self._carried(node.body)
        before = dict(self.scope)
        types = ", ".join(v.type.to_ir() for _, v in carried)
        cond_args = [b.fresh(v.type) for _, v in carried]
        for (n, _), a in zip(carried, cond_args):
            self.scope[n] = tl.tensor(a)
        cond_lines = []
        with b.capture(cond_lines):
            cond = self.visit(node.test)
            if not _is_runtime(cond):
                cond = tl.tensor(sem.lift(b, bool(_py(cond))))
            if cond.type.is_block():
                raise self.error(node.test, "a `while` condition must be a scalar")
            c = sem.cast(b, cond.handle, d.int1)
            b.emit("scf.condition(%s)%s" % (c.name, (" %s : %s" % (
                ", ".join(a.name for a in cond_args), types)) if carried else ""))
        body_args = [b.fresh(v.type) for _, v in carried]
        self.scope = dict(before)
        for (n, _), a in zip(carried, body_args):
            self.scope[n] = tl.tensor(a)
        body_lines = []
        with b.capture(body_lines):
            self.visit_block(node.body)
            yields = self._loop_yields(node, carried)
            b.emit("scf.yield%s" % ((" %s : %s" % (", ".join(y.name for y in yields),
                                                   types)) if yields else ""))
        self.scope = before
        decl, results = b.results([v.type for _, v in carried])
        inits = ", ".join("%s = %s" % (a.name, v.handle.name)
                          for a, (_, v) in zip(cond_args, carried))
        prefix = "%s = " % decl if carried else ""
        b.emit("%sscf.while (%s) : (%s) -> (%s) {" % (prefix, inits, types, types),
               with_loc=False)
        # The before region's block arguments are named by the init list; the
        # after region needs an explicit block header.
        b.emit_lines(cond_lines)
        b.emit("} do {", with_loc=False)
        b.emit("^bb0(%s):" % ", ".join("%s: %s" % (a.name, a.type.to_ir())
                                       for a in body_args), with_loc=False)
        b.emit_lines(body_lines)
        b.emit("}")
        self._rebind([n for n, _ in carried], results)

    def _rebind(self, names, results):
        """After a construct, its variables name the construct's results."""
        for n, value in zip(names, results):
            self.scope[n] = tl.tensor(value)
