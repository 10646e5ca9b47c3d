"""Inline assets of the HTML report (``report.css``, ``report.js``); read with importlib.resources."""
