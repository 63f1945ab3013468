"""Texture images for glTF: PNG and JPEG pass through byte for byte; WebP, GIF, BMP and other
formats Pillow decodes become PNG; derived maps (Unity's metallic/smoothness to glTF's
metallic/roughness) are computed per pixel."""

from __future__ import annotations

import io
import warnings

import numpy as np

from brson.assets.kinds import IMAGE_KINDS, identify
from brson.errors import BrsonError

#: Largest image Pillow may decode (pixels): stops decompression bombs in textures.
MAX_PIXELS = 16384 * 16384


class ImageError(BrsonError):
    layer = "image"


def _open(data: bytes):  # type: ignore[no-untyped-def]
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            image.load()
        return image
    except Exception as exc:  # Pillow raises many types on bad input
        raise ImageError(f"cannot decode the image: {exc}") from None


def for_gltf(data: bytes) -> tuple[bytes, str]:
    """(bytes, MIME type) of an image glTF can carry."""
    kind = identify(data)
    if kind == "png":
        return data, "image/png"
    if kind == "jpeg":
        return data, "image/jpeg"
    if kind not in IMAGE_KINDS:
        raise ImageError(f"a {kind} asset is not an image brson can convert")
    image = _open(data)
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue(), "image/png"


def metallic_roughness(data: bytes) -> bytes:
    """Unity's metallic map (R metallic, A smoothness) as glTF's (G roughness, B metallic)."""
    from PIL import Image

    rgba = np.asarray(_open(data).convert("RGBA"))
    out = np.zeros_like(rgba)
    out[..., 1] = 255 - rgba[..., 3]
    out[..., 2] = rgba[..., 0]
    out[..., 3] = 255
    buf = io.BytesIO()
    Image.fromarray(out[..., :3], "RGB").save(buf, "PNG")
    return buf.getvalue()


#: A 2 x 2 magenta/black checker PNG standing in for a missing texture (RGB, no filter, the
#: bytes Pillow writes for it).  A constant: an export whose textures are all missing (no asset
#: cache given) then never imports Pillow (megabytes of resident memory, and its start-up time).
PLACEHOLDER = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00"
    b"\xfd\xd4\x9as\x00\x00\x00\x12IDATx\x9cc\xf8\xcf\xf0\x9f\x01\x02\xfe3\xfc\x07\x00\x1b"
    b"\xf2\x03\xfd\xdb\xaaf\x7f\x00\x00\x00\x00IEND\xaeB`\x82"
)
