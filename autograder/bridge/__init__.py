"""The bridge between the grader and a sealed kernel, one concern per module: the wire protocol (:mod:`.wire`),
the encoding of values (:mod:`.values`), autograd across the two processes (:mod:`.autograd`), and the peer that
sends requests and serves them (:mod:`.peer`). Each side of the boundary runs the same code."""
