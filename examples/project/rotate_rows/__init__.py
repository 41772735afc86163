"""An example of a project of one's own built on usim: the rows of a matrix rotated by one.

``rotate_rows.construction`` writes the block in RASP; ``rotate_rows.claims``
states what it computes as usim claims (with broken variants that must be
refuted); ``tests/`` proves them with ``usim.testing``. Prove them from the
command line with ``usim prove rotate_rows.claims`` (every claim the module
lists) or ``usim prove rotate_rows.claims:ROTATE``.
"""
