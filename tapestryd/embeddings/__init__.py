"""Local sentence embeddings (the optional ``embeddings`` extra): a numpy BERT encoder and where its weights are.

Nothing here is imported unless embeddings are in use: the fast path and the CLI's start-up
never load numpy, tokenizers or safetensors for it (:mod:`tapestryd.embeddings.model`).
"""
