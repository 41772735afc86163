"""tracr's RASP programs read into usim's RASP (the optional extra ``tracr``).

tracr (google-deepmind/tracr, ``tracr/rasp/rasp.py``) writes RASP as Python
objects whose maps, sequence maps and selector predicates are Python
functions. :func:`usim.tracr_reader.convert.read_tracr` turns such a program,
for a vocabulary and a maximum length, into a usim expression with the meaning
of tracr's own evaluator (``DefaultRASPEvaluator``) on every input of those
tokens up to that length:

* every function is tabulated over the finite set of values its arguments can
  hold (:mod:`usim.tracr_reader.value_sets`, usim's own inference, as tracr's
  compiler tabulates over the sets its basis inference gives), each entry
  exact, and a value outside the table is undefined, never a guess;
* tracr's ``None`` (an aggregate's default, a map's result) is usim's
  undefined: a map of it is undefined, as tracr's evaluator passes None on, and
  a selector that compares it is an error in both;
* an aggregate of numbers (booleans read as 0 and 1) is the mean of the
  selected values, as tracr's evaluator computes it (exactly here, in floats
  there); an aggregate of anything else only moves one value (tracr's
  evaluator raises where several are selected; usim says undefined).
"""
