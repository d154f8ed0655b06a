"""The disk cache of unpacked bundle archives (engine/workload/unpacked.py): a second open reads the unpacked files
instead of decompressing, with the same contents; a malformed archive leaves nothing behind; an upload's check, the
cache turned off and an unwritable cache all unpack into a temporary folder; the folder is kept under its size."""
import os
import shutil
import tarfile
import time
from pathlib import Path

import pytest

from engine.workload import bundle as bundle_mod
from engine.workload import unpacked
from engine.workload.bundle import BundleError, Limits, open_bundle

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SIMTSCOPE_BUNDLE_CACHE", raising=False)
    return tmp_path / "cache" / "bundles"


def contents(b):
    return b.manifest, [(L.index, L.kernel, L.grid, L.block) for L in b.launches], \
        {k: b.buffer_bytes(k) for k in sorted(b.buffers)}, {L.ptx: b.ptx_text(L.ptx) for L in b.launches if L.ptx}


def test_second_open_reads_the_unpacked_files_without_decompressing(cache, monkeypatch):
    with open_bundle(EXAMPLE) as b:
        first = contents(b)
        assert cache in b.root.parents
    entries = [d for d in cache.iterdir() if not d.name.startswith(".")]
    assert len(entries) == 1 and (entries[0] / "complete").is_file()
    assert b.root.exists()                                   # closing does not remove a cache entry

    def no_untar(*a, **k):
        raise AssertionError("decompressed again")
    monkeypatch.setattr(bundle_mod, "_untar", no_untar)
    with open_bundle(EXAMPLE) as b:
        assert contents(b) == first
    # the same archive under a tighter limit is another key, so it is checked (unpacked) again
    with pytest.raises(AssertionError, match="decompressed again"):
        open_bundle(EXAMPLE, Limits(max_bytes=1 << 30))


def test_a_copy_of_the_archive_elsewhere_shares_the_entry(cache, tmp_path):
    copy = tmp_path / "renamed.tar.xz"
    shutil.copyfile(EXAMPLE, copy)
    with open_bundle(EXAMPLE) as a, open_bundle(copy) as b:
        assert a.root == b.root and contents(a) == contents(b)


def test_off_check_or_unwritable_cache_unpack_into_a_temporary_folder(cache, monkeypatch, tmp_path):
    for how in ("off", "check", "unwritable", "argument"):
        kw = {}
        if how == "off":
            monkeypatch.setenv("SIMTSCOPE_BUNDLE_CACHE", "0")
        elif how == "check":
            kw["limits"] = Limits(check=lambda what: None)
        elif how == "unwritable":
            blocker = tmp_path / "blocker"
            blocker.write_text("a file where the cache folder would be")
            monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(blocker))
        else:
            kw["cache"] = False
        with open_bundle(EXAMPLE, **kw) as b:
            root = b.root
            assert cache not in root.parents and contents(b)[1]
        assert not root.exists(), how                        # removed on close
        monkeypatch.delenv("SIMTSCOPE_BUNDLE_CACHE", raising=False)
        monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(cache.parent))
    assert not cache.exists() or not any(cache.iterdir())


def test_a_malformed_archive_raises_and_leaves_nothing(cache, tmp_path):
    bad = tmp_path / "bad.tar.xz"
    bad.write_bytes(EXAMPLE.read_bytes()[:20000])            # truncated
    with pytest.raises(BundleError, match="truncated or corrupt"):
        open_bundle(bad)
    evil = tmp_path / "evil.tar"
    with tarfile.open(evil, "w") as tf:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 0
        tf.addfile(info)
    with pytest.raises(BundleError, match="parent path"):
        open_bundle(evil)
    assert not cache.exists() or not list(cache.iterdir())   # no entry, no temporary folder


def test_two_writers_of_one_key_keep_one_entry(cache):
    key = "k" * 64

    def unpack_to(marker):
        def unpack(d):
            d.mkdir(parents=True)
            (d / "who").write_text(marker)
        return unpack
    first = unpacked.store(key, unpack_to("first"))
    second = unpacked.store(key, unpack_to("second"))       # as if it had unpacked at the same time
    assert first == second and (first / "who").read_text() == "first"
    assert [d.name for d in cache.iterdir()] == [key]        # the loser's temporary folder is gone
    # a leftover entry without `complete` (a removal cut short) is replaced
    (cache / key / "complete").unlink()
    assert unpacked.lookup(key) is None
    third = unpacked.store(key, unpack_to("third"))
    assert (third / "who").read_text() == "third"


def test_prune_removes_the_least_recently_used_entries_but_not_recent_ones(cache):
    def entry(name, age_s, size):
        p = unpacked.store(name, lambda d: (d.mkdir(parents=True), (d / "f").write_bytes(b"x" * size)))
        t = time.time() - age_s
        os.utime(p.parent, (t, t))
    entry("old", 7200, 1000)
    entry("older", 9000, 1000)
    entry("recent", 10, 1000)
    unpacked.prune(max_bytes=1500, keep_s=3600)
    assert sorted(d.name for d in cache.iterdir()) == ["recent"]   # both old ones: the folder was still too big
    entry("a", 7200, 1000)
    unpacked.prune(max_bytes=10_000, keep_s=3600)                  # under the size: nothing goes
    assert sorted(d.name for d in cache.iterdir()) == ["a", "recent"]


def _open_and_digest(args):
    import hashlib
    import os as _os
    cache_dir, path = args
    _os.environ["SIMTSCOPE_CACHE_DIR"] = cache_dir
    from engine.workload.bundle import open_bundle as ob
    with ob(path) as b:
        h = hashlib.sha256()
        for k in sorted(b.buffers):
            h.update(b.buffer_bytes(k) or b"")
        return str(b.root), h.hexdigest()


def test_processes_opening_one_new_archive_at_once_share_one_entry(cache):
    """Several processes opening the same new archive at about the same time (a sweep's first points; whether their
    unpacking overlaps depends on the machine, test_two_writers_of_one_key_keep_one_entry forces it): every one opens
    it, with the same contents, and one entry is left, without temporary folders."""
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    with ctx.Pool(4) as pool:
        got = pool.map(_open_and_digest, [(str(cache.parent), str(EXAMPLE))] * 4)
    assert len({digest for _, digest in got}) == 1
    assert len({root for root, _ in got}) == 1
    assert [d.name for d in cache.iterdir()] == [Path(got[0][0]).relative_to(cache).parts[0]]
