"""Crawl input and output: WARC, JSONL and folder sources, site keys, spill files, sinks."""
