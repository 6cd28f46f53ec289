"""Replays of games: the posterior after every shot, as an animated GIF and a self-contained HTML page.

sources.py reads the game (an experiment's record, a record file or a state file), frames.py
computes what each frame shows, panels.py turns frames into sheets of panels, colors.py holds the
colour scale both pictures share, gif.py draws sheets as images and page.py writes the HTML page.
captain.py makes the sheets of a captain's game (battlelog/captain/transcript.py reads it back).
"""
