"""Templates, static files and locale catalogs of the web table."""

from pathlib import Path

WEB_DIR = Path(__file__).parent
TEMPLATES = WEB_DIR / "templates"
STATIC = WEB_DIR / "static"
LOCALE = WEB_DIR / "locale"
