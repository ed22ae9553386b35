"""One query through the pipeline: parsing, the keyword arm, passages, filters, snippets, explain."""
