"""What an asset is, from its first bytes (never from its name: packdb names have no
extension and resdb extensions are whatever the uploader's file had)."""

from __future__ import annotations

from brson.package import sniff_kind

#: Kinds beyond the package listing's: mesh and GPU texture containers.
_EXTRA = (
    (b"\x05MeshX", "meshx"),
    (b"\xabKTX 11\xbb\r\n\x1a\n", "ktx"),
    (b"\xabKTX 20\xbb\r\n\x1a\n", "ktx2"),
    (b"DDS ", "dds"),
    (b"BM", "bmp"),
)

#: Image kinds Pillow decodes (KTX/DDS/crunch need GPU codecs; reported, not converted).
IMAGE_KINDS = frozenset({"png", "jpeg", "webp", "gif", "bmp", "dds"})


def identify(data: bytes) -> str:
    """ "png", "jpeg", "webp", "gif", "meshx", "data tree", "ktx", "dds", ... or "data"."""
    for magic, kind in _EXTRA:
        if data.startswith(magic):
            return kind
    return sniff_kind(data)[0]
