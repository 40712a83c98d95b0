"""Incremental search over text chunks, shared by the `rag` and `paged` contracts.

`BM25Index` is Okapi BM25 (Robertson and Zaragoza's formulation, with Lucene's
non-negative idf `log(1 + (N - df + 0.5) / (df + 0.5))`) kept as postings that grow one
document at a time: adding a chunk costs its own length, and a query reads only the
postings of its terms. (`rank-bm25`, the usual library, computes idf and document
frequencies once over a fixed corpus, so every added chunk would rebuild the whole
index: quadratic over a game.) `VectorIndex` keeps unit-normalised embeddings and scores
by cosine similarity. Ties are broken towards the newer chunk, so the same chunks and
query always rank alike.
"""

from __future__ import annotations

import heapq
import math
import operator
import re
from collections import Counter
from collections.abc import Sequence

_TERM = re.compile(r"\w+")


def terms(text: str) -> list[str]:
    """The lower-cased word tokens BM25 counts."""
    return _TERM.findall(text.lower())


def top(scores: dict[int, float], k: int) -> list[tuple[int, float]]:
    """The `k` best (document, score) pairs, best first; ties go to the newer document."""
    return heapq.nlargest(k, scores.items(), key=lambda item: (item[1], item[0]))


class BM25Index:
    """Okapi BM25 over documents added one at a time (document ids are 0, 1, 2, ...)."""

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.postings: dict[str, dict[int, int]] = {}
        self.lengths: list[int] = []
        self.total_length = 0

    def __len__(self) -> int:
        return len(self.lengths)

    def add(self, text: str) -> int:
        """Index one document; returns its id."""
        doc = len(self.lengths)
        words = terms(text)
        for term, count in Counter(words).items():
            self.postings.setdefault(term, {})[doc] = count
        self.lengths.append(len(words))
        self.total_length += len(words)
        return doc

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, ()))
        n = len(self.lengths)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def scores(self, query: str, allowed: set[int] | None = None) -> dict[int, float]:
        """BM25 score of every document sharing a term with the query (`allowed`: only
        these documents)."""
        if not self.lengths:
            return {}
        mean_length = max(self.total_length / len(self.lengths), 1e-9)
        found: dict[int, float] = {}
        for term in dict.fromkeys(terms(query)):
            docs = self.postings.get(term)
            if not docs:
                continue
            weight = self.idf(term)
            for doc, count in docs.items():
                if allowed is not None and doc not in allowed:
                    continue
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc] / mean_length)
                found[doc] = found.get(doc, 0.0) + weight * count * (self.k1 + 1) / (count + norm)
        return found

    def search(
        self, query: str, k: int, allowed: set[int] | None = None
    ) -> list[tuple[int, float]]:
        return top(self.scores(query, allowed), k)


def normalise(vector: Sequence[float]) -> list[float]:
    """`vector` scaled to unit length (a zero vector stays zero)."""
    length = math.sqrt(math.fsum(x * x for x in vector))
    return [x / length for x in vector] if length else [0.0 for _ in vector]


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    """The dot product, summed left to right (the same bits on every run)."""
    if len(a) != len(b):
        raise ValueError(f"vectors of {len(a)} and {len(b)} dimensions")
    return sum(map(operator.mul, a, b))


class VectorIndex:
    """Cosine similarity over unit-normalised embeddings, each filed under its document's id
    (a document without an embedding is simply absent)."""

    def __init__(self) -> None:
        self.vectors: dict[int, list[float]] = {}

    def __len__(self) -> int:
        return len(self.vectors)

    def add(self, doc: int, vector: Sequence[float]) -> None:
        self.vectors[doc] = normalise(vector)

    def scores(self, query: Sequence[float], allowed: set[int] | None = None) -> dict[int, float]:
        unit = normalise(query)
        return {
            doc: dot(unit, vector)
            for doc, vector in self.vectors.items()
            if allowed is None or doc in allowed
        }


def hybrid(
    lexical: dict[int, float], semantic: dict[int, float], weight: float
) -> dict[int, float]:
    """`weight` x BM25 (divided by its best score, so in [0, 1]) + (1 - weight) x cosine."""
    best = max(lexical.values(), default=0.0) or 1.0
    docs = set(lexical) | set(semantic)
    return {
        doc: weight * lexical.get(doc, 0.0) / best + (1 - weight) * semantic.get(doc, 0.0)
        for doc in docs
    }


__all__ = ["BM25Index", "VectorIndex", "dot", "hybrid", "normalise", "terms", "top"]
