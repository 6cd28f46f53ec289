"""The one place that finds battlelog's Jinja templates and builds environments over them.

ProbLog programs (``*.pl.j2``) and the replay and web pages (``*.html.j2``) are all rendered from
the repository's top-level ``templates/`` (inside the package once installed from a wheel). Text
templates and HTML templates differ only in escaping, so each kind has one cached environment.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2


def template_dir(package: Path | None = None) -> Path:
    """Where the templates are: inside the package when installed from a wheel (hatchling
    force-includes them as ``battlelog/templates``), else the repository's top-level ``templates/``."""
    package = Path(__file__).resolve().parent if package is None else package
    installed = package / "templates"
    return installed if installed.is_dir() else package.parent / "templates"


@lru_cache(maxsize=2)
def environment(html: bool = False) -> jinja2.Environment:
    """One environment per kind and process (templates are parsed once): HTML escapes, text keeps
    ProbLog's layout. A misspelt context key fails loudly instead of rendering ``""``."""
    if html:
        return jinja2.Environment(
            loader=jinja2.FileSystemLoader(template_dir()), autoescape=True, undefined=jinja2.StrictUndefined
        )
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir()),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
