"""The memory and cost report's code; scripts/report.py is its command."""
