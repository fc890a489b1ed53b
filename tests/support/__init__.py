"""Helpers the tests share (no tests here): paths, a pseudo-terminal, and the
generators and checkers that several test files use.  Import them as
``from support.<module> import ...`` (``tests/`` is on ``sys.path`` under
pytest, as for the other helpers there: ``exprgen``, ``oracle``, ``grid``)."""
