"""``usim show CLAIM``: pictures of every head and a page to teach from.

    usim show lemma5 --shape 2x3x2 --out DIR [--values ... | --random --seed S]
              [--certificate FILE.json]

Writes into DIR one PNG per head (its selector, query positions x key
positions), ``layers.svg`` (the layer diagram), ``sequences.png`` (input and
output as the matrices they encode), ``whole_layers.svg`` when the program shown
is a part of a larger one (a stage of U: the whole program's layer diagram),
and the page ``index.md`` and ``index.html`` (self-contained). Needs
matplotlib: ``pip install 'usim[plot]'``.
"""

from __future__ import annotations

import argparse



def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "show",
        help="draw a claim's construction: one picture per head, layers, a page",
        description="Draw a claim's construction from the very program that is proved: "
        "one picture per head (its selector, query positions x key positions), the layer "
        "diagram, the input and output as matrices, and a page (index.md, self-contained "
        "index.html). Needs matplotlib: pip install 'usim[plot]'.",
        epilog="The values are the input sequence in order (blocks one after another, row-major), "
        "separated by spaces, commas or semicolons; 1/2 and 0.5 are read exactly. "
        "Without --values a random input is drawn (small integers, seed 0 unless --seed).",
    )
    parser.add_argument("claim", help="the claim's id, as `usim prove --list` lists it, or one of your own: "
                        "claims.py:NAME, package.module:NAME (the code runs)")
    parser.add_argument("--shape", help="the shape, e.g. 2x3 or 2x3x2 (default: a small one of the claim)")
    parser.add_argument("--out", required=True, help="the folder to write into (created if needed)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--values", help="the input sequence, e.g. '1 2 3 4 5 6'")
    source.add_argument("--random", action="store_true", help="a random input (the default)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the random input (default 0)")
    parser.add_argument("--certificate", metavar="FILE.json",
                        help="a certificate from `usim prove CLAIM --json FILE`: its status per shape is shown")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from usim.api import one_claim
    from usim.encodings.notation import parse_dims
    from usim.show import render, small_shape
    from usim.show.pictures import pyplot

    pyplot()  # says how to install matplotlib (exit 2) before anything else
    claim = one_claim(args.claim)
    shape = parse_dims(args.shape, least=0) if args.shape else small_shape(claim)  # 0/1 flags: Match2
    done = render(claim, shape, args.out, values=args.values, seed=args.seed,
                  certificate=args.certificate)
    model = done.model
    print(f"{claim.id} at {model.shape_label}: {len(model.heads)} head(s) in "
          f"{model.cost.layers} layer(s); input {model.inputs_from}; the output {model.target_check}")
    whole = f"{done.whole_layers.name}, " if done.whole_layers is not None else ""
    print(f"wrote {len(done.files)} files to {done.folder}: page {done.html.name} and {done.markdown.name}, "
          f"{done.layers.name}, {done.sequences.name}, {whole}{len(done.head_pictures)} head picture(s)")
    return 0
