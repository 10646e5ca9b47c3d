"""Build the next version of a benchmark: the papers' construction pipelines as composable steps.

Each step reads rows (JSON objects in a benchmark's own format) and returns rows plus a report; model calls
go through the normal runner (cached, resumable, stored in the run store). ``recipe`` chains steps from a
YAML file and writes a manifest of what came from where. ``reasoneval build --help`` lists the steps.
"""
