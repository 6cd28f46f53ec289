"""What a person sees and types: boards and heat maps on a terminal, the advisor, a human player,
progress bars, and replays (GIF, PNG and an HTML page)."""
