"""Public benchmark releases from the Hugging Face Hub: pinned, cached, verifiable, usable offline.

``resolve_release(benchmark, config, offline)`` is what loaders call when no local data path is given.
"""

from .cache import set_offline
from .fetch import HubError, Release, data_version, loaded_releases, pull, resolve_commit, resolve_release
from .releases import RELEASES, ReleaseSpec, release

__all__ = ["RELEASES", "HubError", "Release", "ReleaseSpec", "data_version", "loaded_releases", "pull", "release", "resolve_commit",
           "resolve_release", "set_offline"]
