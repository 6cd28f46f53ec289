"""The native engine: the ground model compiled into a layered decision diagram by an exact counting sweep."""
