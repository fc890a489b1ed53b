"""The algebra: canonical symbolic dimension expressions, one job per module.

* :mod:`~symshape.algebra.atoms` -- atoms (variables, ``floordiv``, ``max(., 0)``)
  and their monomials: interning, order, products;
* :mod:`~symshape.algebra.poly` -- the polynomial ring over atoms (no scope) and
  the one evaluator;
* :mod:`~symshape.algebra.bounds` -- ends of intervals;
* :mod:`~symshape.algebra.protocol` -- what the algebra asks of a scope;
* :mod:`~symshape.algebra.dimexpr` -- :class:`~symshape.algebra.dimexpr.DimExpr`,
  its operators, coercion of numbers, size limits;
* :mod:`~symshape.algebra.floordiv` and :mod:`~symshape.algebra.maxmin` -- the
  canonical forms of ``floordiv``/``mod`` and ``max``/``min``, one module each;
* :mod:`~symshape.algebra.substitute` -- substitution, copying into another scope.

Import what you need from those modules (this package imports none of them).
"""
