"""What the methods share: candidates and ranked lists, fusion, plain vector/BM25 lists,
attribute filters, text matches, entity linking, parallel reads and step timings."""
