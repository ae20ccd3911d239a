"""LangChain adapter: the hybrid retriever as a `BaseRetriever`, so it composes with LangChain
runnables (and any LangChain app can use paperchat's index). Each Document is one paper: the full
abstract as `page_content`, and `metadata` with the paper id, label, per-retriever scores and the
`Hit` record itself (the answer stage reads the Hit; LangChain objects stay in this module).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from .hybrid import Filters, HybridRetriever


class PaperRetriever(BaseRetriever):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: Any  # HybridRetriever (typed loosely: pydantic cannot validate it)
    k: int = 5
    filters: Filters | None = None

    def with_k(self, k: int) -> PaperRetriever:
        return PaperRetriever(retriever=self.retriever, k=k, filters=self.filters)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hr: HybridRetriever = self.retriever
        return [
            Document(
                page_content=h.text,
                metadata={"paper_id": h.paper_id, "title": h.title, "score": h.score, "scores": h.scores, "hit": h},
            )
            for h in hr.search(query, k=self.k, filters=self.filters)
        ]
