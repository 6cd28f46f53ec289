"""Turning game records into numbers people read: statistics with intervals and paired tests,
Markdown and CSV tables, plots, and the paper's table."""
