"""tracr's compiled models in usim's network model: faithful to tracr's own run, and what they get wrong."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tracr", reason="tracr is not installed (the tracr extra: pip install 'usim[tracr]')")
from tracr.compiler import compiling  # noqa: E402

from usim.claim_code import load_object  # noqa: E402
from usim.encodings.exact import ExactInterpretation  # noqa: E402
from usim.encodings.numeric import NumericInterpretation  # noqa: E402
from usim.errors import EvaluationError, InputError  # noqa: E402
from usim.transformer.forward import run  # noqa: E402
from usim.transformer.tracr_to_network import check_tracr_model, tracr_to_network  # noqa: E402

# tracr's compiler starts JAX's threads; the engine forks children later in the same run (JAX warns that
# a fork after its threads may deadlock): each test runs in a fresh process of its own (tests/conftest.py)
pytestmark = pytest.mark.own_process

PROGRAMS = Path(__file__).resolve().parent.parent / "examples" / "tracr" / "programs.py"
BOS = "compiler_bos"


def program(name: str):
    return load_object(f"{PROGRAMS}:{name}", "tracr program")


def usims_run(model, p, tokens):
    converted = tracr_to_network(model, p, len(tokens[0]))
    out = run(converted.network, NumericInterpretation(), np.array([converted.encode(t) for t in tokens], float))
    return converted.decode(out)


@pytest.mark.parametrize("name,vocab", [("hist", "abc"), ("reverse", "abc"), ("frac_prevs", "abc"),
                                        ("sort", (1, 2, 3, 4)), ("pair_balance", "()x")])
def test_usims_run_of_tracrs_model_decodes_as_tracrs_own_on_every_input_up_to_length_3(name, vocab):
    p = program(name)
    model = compiling.compile_rasp_to_model(p, vocab=set(vocab), max_seq_len=3, compiler_bos=BOS)
    for n in range(1, 4):
        tokens = [list(t) for t in itertools.product(vocab, repeat=n)]
        for xs, got in zip(tokens, usims_run(model, p, tokens)):
            theirs = model.apply([BOS] + xs).decoded[1:]
            assert np.allclose(got, theirs, atol=1e-6) if isinstance(theirs[0], float) else got == theirs, xs


def test_a_model_read_without_its_bos_position_no_longer_decodes_as_tracrs():
    p = program("hist")
    model = compiling.compile_rasp_to_model(p, vocab={"a", "b", "c"}, max_seq_len=3, compiler_bos=BOS)
    tokens = [list(t) for t in itertools.product("abc", repeat=3)]
    expected = [model.apply([BOS] + xs).decoded[1:] for xs in tokens]
    assert usims_run(model, p, tokens) == expected
    embedding = np.array(model.params["token_embed"]["embeddings"])
    embedding[model.input_encoder.encoding_map[BOS]] = 0  # BOS's embedding left out: selector_width's sink is gone
    model.params["token_embed"]["embeddings"] = embedding
    assert usims_run(model, p, tokens) != expected


def test_where_tracrs_evaluator_gives_none_its_model_decodes_a_token():
    check = check_tracr_model(program("shift_by"), list("abc"), 3, compare_apply=False)
    assert check.differs == check.at_none == check.inputs  # position 0 of every input, and only there
    assert check.first[1] == 0 and check.first[2] is None and check.first[3] in "abc"


def test_a_numerical_output_is_approximate_and_the_largest_error_is_reported():
    check = check_tracr_model(program("frac_prevs"), list("abc"), 3, compare_apply=False)
    assert check.differs == 0 and 0 < check.largest_error < 1e-6


def test_a_program_tracrs_model_computes_as_its_evaluator_has_no_difference():
    check = check_tracr_model(program("sort"), [1, 2, 3, 4], 3)
    assert (check.differs, check.first, check.agrees_with_tracr) == (0, None, check.inputs)


def test_the_softmax_of_queries_that_read_the_input_is_numeric_only_and_a_length_past_the_model_refused():
    p = program("hist")
    model = compiling.compile_rasp_to_model(p, vocab={"a", "b"}, max_seq_len=2, compiler_bos=BOS)
    converted = tracr_to_network(model, p, 2)
    with pytest.raises(EvaluationError, match="only the numeric interpretation"):
        run(converted.network, ExactInterpretation(), converted.encode(["a", "b"]))
    with pytest.raises(InputError, match="at most 2 tokens"):
        tracr_to_network(model, p, 3)
