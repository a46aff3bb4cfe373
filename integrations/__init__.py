"""Loaders that read a ragprep dataset straight into other frameworks.

- ``ragprep.integrations.langchain.RagprepLoader``: a LangChain ``BaseLoader``
  (needs ``langchain-core``: ``pip install 'ragprep[langchain]'``).
- ``ragprep.integrations.llamaindex.RagprepReader``: LlamaIndex ``TextNode``s
  (needs ``llama-index-core``: ``pip install 'ragprep[llamaindex]'``).

Both yield the chunks in document order, ``(source, index)``, with the chunk id
as the framework's id and the provenance columns as metadata.
"""
