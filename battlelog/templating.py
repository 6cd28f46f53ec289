"""The one place that finds battlelog's Jinja templates and builds environments over them.

ProbLog programs (``*.pl.j2``) and the replay and web pages (``*.html.j2``) are all rendered from
the repository's top-level ``templates/`` (inside the package once installed from a wheel). Text
templates and HTML templates differ only in escaping, so each kind has one cached environment, and
both keep their compiled templates in the user's cache folder: compiling the ProbLog templates took
0.14 s of CPU in every ``battlelog script`` run, a third of it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from battlelog.cachedir import cache_dir
from battlelog.errors import WriteError
from battlelog.files import replacing

#: The folder of compiled templates inside the cache folder; Jinja's buckets carry the Python version
#: and each template's source checksum, so an edited template or another Python recompiles.
FOLDER = "templates-v1"


def template_dir(package: Path | None = None) -> Path:
    """Where the templates are: inside the package when installed from a wheel (hatchling
    force-includes them as ``battlelog/templates``), else the repository's top-level ``templates/``."""
    package = Path(__file__).resolve().parent if package is None else package
    installed = package / "templates"
    return installed if installed.is_dir() else package.parent / "templates"


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates, one file each, in ``directory`` (default: the cache folder's
    :data:`FOLDER`). A file that is missing, damaged or stale is compiled again, and a folder that
    cannot be written is not an error: the program rendered is the same either way."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        directory = self.directory if self.directory is not None else cache_dir() / FOLDER
        return directory / f"{bucket.key}.jinja"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with open(self._path(bucket), "rb") as handle:
                bucket.load_bytecode(handle)
        except FileNotFoundError:
            return
        except Exception:  # noqa: BLE001 - any damage to a cache file means: compile again
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = self._path(bucket)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with replacing(path, regular=True) as scratch, open(scratch, "wb") as handle:
                bucket.write_bytecode(handle)
        except (OSError, WriteError):
            return


@lru_cache(maxsize=2)
def environment(html: bool = False) -> jinja2.Environment:
    """One environment per kind and process (templates are parsed once): HTML escapes, text keeps
    ProbLog's layout. A misspelt context key fails loudly instead of rendering ``""``."""
    if html:
        return jinja2.Environment(
            loader=jinja2.FileSystemLoader(template_dir()),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            bytecode_cache=CompiledTemplates(),
        )
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir()),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        bytecode_cache=CompiledTemplates(),
    )
