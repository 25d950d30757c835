"""Search over a namespace: the hybrid search (`hybrid`: BM25 and vectors fused by rank, over
records and tool-result snapshots) and the embedders that give it its vector half (`embed`)."""
