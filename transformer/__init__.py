"""U as a real transformer: a model, a compiler from RASP to weights, exports.

=========================== =================================================
``model``                   the network: one-hot positions, heads (average-hard
                            or softmax with masks), MLPs (ReLU and bilinear
                            units), exact rational weights
``forward``                 its forward pass in every interpretation (numeric,
                            exact, sympy, z3), exact argmax per length
``rasp_analysis``           what compiler pass 1 knows before it realises:
                            known values, demand
``circuit``                 what pass 1 writes and pass 2 reads: the circuit,
                            its heads and units, ``CompileError``
``rasp_to_circuit``         compiler pass 1: the realisation
``circuit_to_network``      compiler pass 2: layers, scores, weights
``compiler``                the two passes in order
``hard_to_masked``          the same network under softmax attention with masks
``softmax_bound``           average-hard heads as softmax(beta * scores): the
                            bound on the deviation, and its measurement
``broken``                  deliberately broken networks (a wrong score, no
                            sink, a wrong MLP weight)
``size``                    what a network costs: layers, heads, width, units,
                            parameters
``network_to_arrays``       the weights as named float64 arrays (.npz)
``network_to_torch``        the masked network as a torch.nn.Module of
                            standard parts (optional extra ``torch``)
``torch_layers``            PyTorch's attention and encoder layers made and
                            read as U's arrays (``usim simulate --torch``)
=========================== =================================================

Why U's layer norm is not compiled: U lays a row of Z out along the sequence
and normalises it with heads (a mean over positions) and a division by a
data-dependent square root; a LayerNorm normalises the residual vector at one
position. No exact network realises the division here, so the encoder claims
(Corollaries 6.1 and 9.1) are not compiled.
"""
