"""Replays of games: the posterior after every shot, as an animated GIF and a self-contained HTML page.

sources.py reads the game (an experiment's record, a record file or a state file), frames.py
computes what each frame shows, colors.py holds the colour scale both pictures share, gif.py draws
frames as images and page.py writes the HTML page.
"""
