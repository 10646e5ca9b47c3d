"""The insert statements the store and its writer thread share (one row per completion, cache entry, verdict)."""

INSERT_COMPLETION = "INSERT OR REPLACE INTO completions VALUES (" + ",".join("?" * 18) + ")"
INSERT_CACHE = "INSERT OR REPLACE INTO cache VALUES (" + ",".join("?" * 10) + ")"
INSERT_VERDICT = "INSERT OR REPLACE INTO verdicts VALUES (" + ",".join("?" * 10) + ")"
