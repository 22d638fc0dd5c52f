"""Sources: parsers that turn files into events, the tailer, the inbox and the ingest pipeline."""
