"""Control flow on runtime values: `if` becomes `scf.if`, `for` over a
range `scf.for` (`tl.static_range` unrolls), `while` `scf.while`. The
variables a construct assigns are carried through it as the op's results,
one type on every path. Compile-time conditions pick a branch in Python.

A mixin of the code generator (tile.compiler.code_generator.CodeGenerator),
whose visitor, scope and builder it uses."""

import ast
import builtins
import warnings

from tile.compiler.values import is_runtime as _is_runtime
from tile.compiler.values import python_value as _py
from tile.compiler.values import (Structure, StructureMismatch, Unavailable,
                                  pair_leaves)
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


def _reads(node, name):
    return any(isinstance(n, ast.Name) and n.id == name and
               isinstance(n.ctx, ast.Load) for n in ast.walk(node))


def _stores(node, name):
    return any(isinstance(n, ast.Name) and n.id == name and
               isinstance(n.ctx, ast.Store) for n in ast.walk(node))


def first_use(stmts, name):
    """Whether `stmts` certainly assign `name` before reading it ("write"),
    may read its incoming value ("read"), or neither (None)."""
    for stmt in stmts:
        use = _first_use_in(stmt, name)
        if use is not None:
            return use
    return None


def _first_use_in(stmt, name):
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if (stmt.value is not None and _reads(stmt.value, name)) or \
                any(_reads(t, name) for t in targets):
            return "read"
        return "write" if any(_stores(t, name) for t in targets) else None
    if isinstance(stmt, ast.AugAssign):
        return "read" if _reads(stmt, name) or _stores(stmt, name) else None
    if isinstance(stmt, ast.If):
        if _reads(stmt.test, name):
            return "read"
        uses = [first_use(stmt.body, name), first_use(stmt.orelse, name)]
        if "read" in uses:
            return "read"
        return "write" if uses == ["write", "write"] else None
    if isinstance(stmt, ast.For) and _stores(stmt.target, name):
        # The loop variable: its body reads the value the loop assigns.
        return "read" if _reads(stmt.iter, name) else None
    if isinstance(stmt, (ast.For, ast.While)):
        # A loop body may not run: its writes are not certain.
        return "read" if _reads(stmt, name) else None
    return "read" if _reads(stmt, name) else None


# The scope key of the k-th value an `if` returns (not a Python name).
_RETURN_SLOT = "return value %d"
# A conditional expression's value, while its scf.if is built ("$" keeps it
# apart from Python names).
_TERNARY_SLOT = "$ternary"


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


def _holds(tree, part):
    """Whether `part` (a list) is, by identity, inside the recipe `tree`."""
    if tree is part:
        return True
    if isinstance(tree, dict):
        tree = list(tree.values())
    return isinstance(tree, list) and any(_holds(t, part) for t in tree)


class ControlFlow:
    _ternaries = 0   # numbers each conditional expression's slot
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

    def visit_If(self, node, cond=None):
        if cond is None:
            cond = self.visit(node.test)
        if not _is_runtime(cond):
            self.visit_block(node.body if _py(cond) else node.orelse)
            return
        if cond.type.is_block() and cond.type.numel == 1:
            # One element: its value, as Triton unsplats it (with a warning).
            warnings.warn("If conditional called with multidimensional "
                          "Tensor: its one element is the condition")
            cond = cond.item()
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
        # An `if` a path returns from ends its block (visit_block moved the
        # rest of the block into its branches), so no variable it assigns
        # is read after it: only the returned values merge. A pointer that
        # one path advances into a tensor after the other returned
        # (`if pid * B >= n: return` and then `X = X + offs`) is no clash.
        terminal = then_ret is not None or else_ret is not None
        names = [] if terminal else [
            n for n in assigned_names(node.body + node.orelse)
            if n in then_scope and n in else_scope and
            (then_scope[n] is not before.get(n) or
             else_scope[n] is not before.get(n))]
        returned = self._returned_values(node, then_ret, else_ret)
        for k in range(returned):
            # Returned values merge as variables no Python name can clash with.
            names.append(_RETURN_SLOT % k)
            then_scope[names[-1]] = then_ret[k]
            else_scope[names[-1]] = else_ret[k]
        # Each variable merges as its runtime parts (an aggregate's leaves);
        # compile-time parts identical in both branches need no yield.
        merged, then_vals, else_vals = [], [], []
        for n in names:
            try:
                pairs, build = pair_leaves(then_scope[n], else_scope[n],
                                           _describe(n))
            except StructureMismatch as e:
                raise self.error(node, "%s must hold the same kind of value "
                                 "in both branches of this `if`: %s"
                                 % (_describe(n), e)) from None
            if not pairs:
                self.scope[n] = then_scope[n]
                continue
            for tv, ev in pairs:
                with b.capture(then_lines):
                    tv2, _ = self._lift_for_merge(tv, ev)
                with b.capture(else_lines):
                    _, ev2 = self._lift_for_merge(tv, ev)
                if tv2.type != ev2.type:
                    # Triton's wordings (its tests match on them).
                    if n.startswith(_TERNARY_SLOT):
                        raise self.error(node, "Ternary expression with dynamic "
                                         "condition has inconsistent type: %r "
                                         "and %r" % (tv2.type, ev2.type))
                    lead = "Return type mismatch: " if n.startswith(
                        "return value ") else "Mismatched type for %s: " % n
                    raise self.error(node, "%s%s has type %r in one branch and "
                                     "%r in the other" % (lead, _describe(n),
                                                          tv2.type, ev2.type))
                then_vals.append(tv2)
                else_vals.append(ev2)
            merged.append((n, build, len(pairs)))
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
        at = 0
        for n, build, count in merged:
            self.scope[n] = build(results[at:at + count])
            at += count
        if then_ret is not None or else_ret is not None:
            self.returns = [self.scope.pop(_RETURN_SLOT % k)
                            for k in range(returned)]

    def _loop_annotation(self, node, unroll, disable_licm):
        """The `llvm.loop_annotation` a loop's hints ask for (MLIR carries
        it to the back edge's branch and LLVM's loop metadata), or None."""
        if unroll is not None and (isinstance(unroll, bool) or
                                   not isinstance(unroll, int) or unroll < 1):
            raise self.error(node, "loop_unroll_factor must be a positive "
                             "constexpr integer, got %r" % (unroll,))
        if not isinstance(disable_licm, bool):
            raise self.error(node, "disable_licm must be a constexpr bool, "
                             "got %r" % (disable_licm,))
        parts = []
        if unroll is not None:
            parts.append("unroll = <count = %d : i32>" % unroll)
        if disable_licm:
            parts.append("licm = <disable = true>")
        if not parts:
            return None
        return "llvm.loop_annotation = #llvm.loop_annotation<%s>" % ", ".join(parts)

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
        # As in Python (and Triton), only the side the condition picks runs:
        # an scf.if whose branches each assign one slot, so that a load or a
        # store on the other side never happens (`tl.store(a) if c else
        # tl.store(b)`, whose value is None, is an `if` with no result).
        self._ternaries += 1
        slot = "%s%d" % (_TERNARY_SLOT, self._ternaries)

        def assign(value):
            statement = ast.copy_location(ast.Assign(
                targets=[ast.Name(id=slot, ctx=ast.Store())], value=value), value)
            statement.tile_keep_numbers = True
            return statement
        branch = ast.copy_location(ast.If(test=node.test, body=[assign(node.body)],
                                          orelse=[assign(node.orelse)]), node)
        # The branches return nothing: what the enclosing code has returned
        # so far stays as it was.
        returns = self.returns
        self.visit_If(branch, cond)
        self.returns = returns
        # Both sides None (statements used as values) leave no slot behind.
        return self.scope.pop(slot, None)

    # ---------------------------------------------------------------- loops
    def _carried(self, body):
        """The variables a loop body assigns that exist before the loop and
        hold runtime values: (name, structure, block-argument types). A
        Python number is lifted first (a counter becomes an i32); an
        aggregate is carried as its runtime leaves."""
        carried = []
        for n in assigned_names(body):
            if n not in self.scope:
                continue
            v = _py(self.scope[n])
            if isinstance(v, (bool, int, float)):
                v = tl.tensor(sem.lift(self.builder, v))
            structure = Structure(v)
            if structure.leaves:
                carried.append((n, structure))
        return carried

    def _enter_loop_body(self, carried, args):
        """Binds each carried variable to the loop's block arguments; returns
        each variable's value as the body first sees it."""
        entries, at = [], 0
        for n, structure in carried:
            count = len(structure.leaves)
            leaves = [tl._wrap_param(a) for a in args[at:at + count]]
            at += count
            self.scope[n] = structure.build(leaves)
            entries.append((self.scope[n], leaves))
        return entries

    def _loop_yields(self, node, carried, entries, before):
        """The values a loop body ends with for its carried variables, which
        must keep the type they entered with; compile-time values the body
        changes are an error (one compiled body serves every iteration)."""
        b = self.builder
        yields = []
        for (n, _), (entry, leaves) in zip(carried, entries):
            try:
                pairs, _ = pair_leaves(entry, self.scope[n], _describe(n))
            except StructureMismatch as e:
                raise self.error(node, "loop-carried %s changes in the loop "
                                 "body: %s" % (_describe(n), e)) from None
            if len(pairs) != len(leaves) or any(
                    _py(p[0]) is not leaf for p, leaf in zip(pairs, leaves)):
                raise self.error(node, "a compile-time part of loop-carried %s "
                                 "changes in the loop body; make it a runtime "
                                 "value (tl.to_tensor) before the loop"
                                 % _describe(n))
            for (_, v), leaf in zip(pairs, leaves):
                v = _py(v)
                if not isinstance(v, tl.tensor):
                    v = tl.tensor(sem.cast(b, sem.lift(b, v, leaf.dtype),
                                           leaf.dtype))
                if v.type != leaf.type:
                    raise self.error(node, "loop-carried %s changes type "
                                     "from %r to %r in the loop body" %
                                     (_describe(n), leaf.type, v.type))
                yields.append(v.handle)
        carried_names = {n for n, _ in carried}
        for n in assigned_names(node.body):
            if n in before and n not in carried_names and \
                    n in self.scope and self.scope[n] is not before[n]:
                try:
                    changed = bool(pair_leaves(before[n], self.scope[n],
                                               _describe(n))[0])
                except StructureMismatch:
                    changed = True
                if not changed:
                    continue
                why = ("%s holds the compile-time value %r before the loop "
                       "and is assigned another value in it; a value that "
                       "changes in a loop must be a runtime value from the "
                       "start (tl.to_tensor)" % (_describe(n), _py(before[n])))
                if first_use(node.body, n) == "read":
                    # The one compiled body would read the first value in
                    # every iteration.
                    raise self.error(node, why)
                # Read after the loop only: an error if it is.
                before[n] = Unavailable(why)
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
        # A constexpr negative step counts down: the loop runs k = 0, -step,
        # ... below start - end (in 64 bits, so that the span of any two
        # 32-bit bounds fits) and the body sees i = start - k.
        descending = isinstance(bounds[2], int) and bounds[2] < 0
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
        loop_ty = ty
        if descending:
            start = lb
            loop_ty = d.int64 if ty.primitive_bitwidth < 64 else ty
            wide_start, wide_end = (sem.cast(b, v, loop_ty) for v in (lb, ub))
            lb = sem.lift(b, 0, loop_ty)
            ub = b.op(loop_ty, "arith.subi %s, %s : %s" % (
                wide_start.name, wide_end.name, loop_ty.to_ir()))
            step = sem.lift(b, -bounds[2], loop_ty)
        carried = self._carried(node.body)
        inits = [leaf for _, s in carried for leaf in s.leaves]
        loop_iv = b.fresh(loop_ty)
        iv = loop_iv
        before = dict(self.scope)
        # First assume that carried values with host recipes (a block
        # pointer's base, shape and strides, which tl.advance passes through)
        # keep them: descriptors made in the body can then be encoded at
        # launch. If a value whose recipe a descriptor used does change, the
        # body is emitted again without the assumption. (Each block argument
        # gets its own copy of the recipe, found again by identity.)
        for assume in (True, False):
            args = [b.fresh(v.type) for v in inits]
            if assume:
                for a, v in zip(args, inits):
                    if v.handle.host is not None:
                        a.host = list(v.handle.host)
            used, made = len(b.host_recipes), len(b.host_descriptors)
            self.scope = dict(before)
            self.scope[node.target.id] = tl.tensor(iv)
            entries = self._enter_loop_body(carried, args)
            lines = []
            with b.capture(lines):
                if descending:
                    offset = sem.cast(b, loop_iv, ty)
                    self.scope[node.target.id] = tl.tensor(b.op(
                        ty, "arith.subi %s, %s : %s" % (
                            start.name, offset.name, ty.to_ir())))
                self.visit_block(node.body)
                yields = self._loop_yields(node, carried, entries, before)
                if yields:
                    b.emit("scf.yield %s : %s" % (
                        ", ".join(y.name for y in yields),
                        ", ".join(y.type.to_ir() for y in yields)))
            changed = [a.host for a, y in zip(args, yields)
                       if a.host is not None and y is not a]
            if not (assume and changed and any(
                    _holds(recipe, host) for recipe in b.host_recipes[used:]
                    for host in changed)):
                break
            del b.host_descriptors[made:]
            del b.host_recipes[used:]
        self.scope = before
        decl, results = b.results([v.type for v in inits])
        head = "scf.for %s = %s to %s step %s" % (loop_iv.name, lb.name, ub.name, step.name)
        if carried:
            head = "%s = %s iter_args(%s) -> (%s)" % (
                decl, head, ", ".join("%s = %s" % (a.name, v.handle.name)
                                for a, v in zip(args, inits)),
                ", ".join(a.type.to_ir() for a in args))
        b.emit("%s : %s {" % (head, loop_ty.to_ir()), with_loc=False)
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
        annotation = self._loop_annotation(node.iter, _py(getattr(
            it, "loop_unroll_factor", None)), _py(getattr(it, "disable_licm", False)))
        if annotation:
            attrs.append(annotation)
        b.emit("} {%s}" % ", ".join(attrs) if attrs else "}")
        self._rebind(carried, results)

    def visit_While(self, node):
        _reject_return_in_loop(self, node.body)
        if node.orelse:
            raise self.error(node, "while/else is not supported in tile kernels")
        b = self.builder
        carried = self._carried(node.body)
        inits = [leaf for _, s in carried for leaf in s.leaves]
        before = dict(self.scope)
        types = ", ".join(v.type.to_ir() for v in inits)
        cond_args = [b.fresh(v.type) for v in inits]
        self._enter_loop_body(carried, cond_args)
        cond_lines = []
        annotation = None
        with b.capture(cond_lines):
            cond = self.visit(node.test)
            if isinstance(_py(cond), tl.condition):
                options = _py(cond)
                annotation = self._loop_annotation(
                    node.test, None, _py(options.disable_licm))
                cond = options.condition
            if not _is_runtime(cond):
                cond = tl.tensor(sem.lift(b, bool(_py(cond))))
            if cond.type.is_block():
                raise self.error(node.test, "a `while` condition must be a scalar")
            c = sem.cast(b, cond.handle, d.int1)
            b.emit("scf.condition(%s)%s" % (c.name, (" %s : %s" % (
                ", ".join(a.name for a in cond_args), types)) if carried else ""))
        body_args = [b.fresh(v.type) for v in inits]
        self.scope = dict(before)
        entries = self._enter_loop_body(carried, body_args)
        body_lines = []
        with b.capture(body_lines):
            self.visit_block(node.body)
            yields = self._loop_yields(node, carried, entries, before)
            b.emit("scf.yield%s" % ((" %s : %s" % (", ".join(y.name for y in yields),
                                                   types)) if yields else ""))
        self.scope = before
        decl, results = b.results([v.type for v in inits])
        init_list = ", ".join("%s = %s" % (a.name, v.handle.name)
                              for a, v in zip(cond_args, inits))
        prefix = "%s = " % decl if carried else ""
        b.emit("%sscf.while (%s) : (%s) -> (%s) {" % (prefix, init_list, types, types),
               with_loc=False)
        # The before region's block arguments are named by the init list; the
        # after region needs an explicit block header.
        b.emit_lines(cond_lines)
        b.emit("} do {", with_loc=False)
        b.emit("^bb0(%s):" % ", ".join("%s: %s" % (a.name, a.type.to_ir())
                                       for a in body_args), with_loc=False)
        b.emit_lines(body_lines)
        b.emit("} attributes {%s}" % annotation if annotation else "}")
        self._rebind(carried, results)

    def _rebind(self, carried, results):
        """After a loop, its carried variables are built from its results."""
        at = 0
        for n, structure in carried:
            count = len(structure.leaves)
            self.scope[n] = structure.build(results[at:at + count])
            at += count
