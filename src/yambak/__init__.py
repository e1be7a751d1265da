"""yambak: the Yam family of five-dice games."""

__version__ = "0.1.0"
__all__ = ["__version__"]
