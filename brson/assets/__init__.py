"""Asset URLs of a data tree resolved to bytes, and asset content identified by its bytes."""

from brson.assets.kinds import identify
from brson.assets.store import AssetStore, AssetURL, parse_url

__all__ = ["AssetStore", "AssetURL", "identify", "parse_url"]
