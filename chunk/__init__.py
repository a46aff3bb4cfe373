"""Stage 2: page text + blocks -> token-sized chunks with provenance.

Not built yet: the chunking stage is issue 5 (it needs the blocks of issue 3).
Nothing in ragprep imports this package until then.
"""
