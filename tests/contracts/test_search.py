import math

from bounded.contracts._search import BM25Index, VectorIndex, hybrid, terms, top

DOCS = [
    "the jaw worm attacks for eleven",
    "a shop sells a relic and a potion",
    "the cultist casts a ritual and attacks",
    "rest site: rest or upgrade a card",
]


def brute_force_bm25(docs, query, k1=1.5, b=0.75):
    """BM25 recomputed from scratch over the whole corpus (what a batch index does)."""
    tokenised = [terms(d) for d in docs]
    mean = sum(map(len, tokenised)) / len(tokenised)
    scores = {}
    for doc, words in enumerate(tokenised):
        total = 0.0
        for term in set(terms(query)):
            df = sum(term in other for other in tokenised)
            tf = words.count(term)
            if not tf:
                continue
            idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
            total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(words) / mean))
        if total:
            scores[doc] = total
    return scores


def test_the_incremental_index_scores_as_bm25_over_the_whole_corpus_at_every_size():
    index = BM25Index()
    for size, doc in enumerate(DOCS, start=1):
        index.add(doc)
        for query in ("the worm attacks", "rest and upgrade", "relic potion shop"):
            got = index.scores(query)
            expected = brute_force_bm25(DOCS[:size], query)
            assert got.keys() == expected.keys()
            assert all(math.isclose(got[d], expected[d]) for d in got)


def test_search_ranks_the_matching_document_first_and_breaks_ties_towards_the_newer():
    index = BM25Index()
    for doc in DOCS:
        index.add(doc)
    assert index.search("upgrade a card", 2)[0][0] == 3
    assert top({0: 1.0, 5: 1.0, 2: 0.5}, 2) == [(5, 1.0), (0, 1.0)]
    assert index.search("nothing matches zzz", 3) == []


def test_cosine_and_hybrid_scores():
    vectors = VectorIndex()
    vectors.add(0, [1.0, 0.0])
    vectors.add(1, [0.0, 2.0])
    scores = vectors.scores([0.0, 5.0])
    assert math.isclose(scores[1], 1.0) and math.isclose(scores[0], 0.0)
    mixed = hybrid({0: 4.0}, scores, weight=0.5)
    assert math.isclose(mixed[0], 0.5) and math.isclose(mixed[1], 0.5)
