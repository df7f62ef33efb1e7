"""The job engine (`sitesift.jobs`): one site task, whichever command runs it.

The commands' own tests (test_batch*, test_crawl*, test_hostile_*, test_spark) hold the
behaviour end to end; these hold what the engine promises every adapter.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
from dataclasses import replace
from functools import partial

import pytest

from sitesift.cli import SAMPLE_SITE
from sitesift.datasets import read_index
from sitesift.errors import InputError, reason_of
from sitesift.io.records import outcome_record
from sitesift.jobs.grouping import UNKNOWN, group_key, host_of, site_key
from sitesift.jobs.outcome import Out, SiteDone
from sitesift.jobs.policy import SitePolicy
from sitesift.jobs.site import steps
from sitesift.jobs.source import Source
from sitesift.jobs.task import SiteTask
from sitesift.output import Output, file_record, render_result
from sitesift.sitework import CrawlConfig
from tests.conftest import SHARED

ROWS = read_index(SAMPLE_SITE)


def _sources(n: int) -> list[Source]:
    return [Source(r["id"], "", r, str(SAMPLE_SITE)) for r in ROWS[:n]]


def _run(task: SiteTask) -> tuple[dict[int, Out], SiteDone]:
    messages = [m for m in steps(task, None) if isinstance(m, Out | SiteDone)]
    *outs, done = messages
    assert isinstance(done, SiteDone) and all(isinstance(o, Out) for o in outs)
    by_index = {o.index: o for o in outs if isinstance(o, Out)}
    assert len(by_index) == len(outs)  # one outcome per page, never two
    return by_index, done


def test_one_reason_helper_words_every_failure() -> None:
    assert reason_of(InputError("p1: no page file")) == "p1: no page file"
    assert "out of memory" in reason_of(MemoryError())
    assert reason_of(KeyError("x")) == "internal error (KeyError): 'x'"


def test_a_site_task_gives_one_outcome_per_page_and_says_how_it_was_cleaned() -> None:
    outs, done = _run(SiteTask("hg", _sources(6), SitePolicy("sst")))
    assert sorted(outs) == list(range(6)) and all(o.outcome.result for o in outs.values())
    assert (done.model, done.pages, done.method) == ("fitted", 6, "sst")


def test_the_crawl_policy_lets_its_fallback_clean_a_site_too_small_to_fit() -> None:
    policy = CrawlConfig(method="sst", fallback="alltext", min_site_pages=5).policy()
    outs, done = _run(SiteTask("hg", _sources(3), policy))
    assert (done.model, done.method, done.note) == ("fallback", "alltext", "3 pages, fewer than 5")
    assert all(o.outcome.record is not None for o in outs.values())
    outs, done = _run(SiteTask(UNKNOWN, _sources(6), policy))
    assert done.model == "fallback" and "without a URL" in str(done.note)


def test_the_crawls_pages_leave_their_task_as_records_made_as_the_parent_would() -> None:
    """A crawl's worker sends each page's record, not its Result (every block, pickled to
    the parent and dropped there): the same record the parent made of the Result."""
    cfg = CrawlConfig(method="sst", fallback="alltext", min_site_pages=2, markdown=True)
    records, _ = _run(SiteTask("hg", _sources(4), cfg.policy()))
    results, _ = _run(SiteTask("hg", _sources(4), replace(cfg.policy(), pack=None)))
    for i, out in records.items():
        assert out.outcome.result is None and out.outcome.record is not None
        made = outcome_record(results[i].outcome, "hg", "page", cfg.output())
        assert out.outcome.record == made and made["text"] and made["markdown"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_cleans_pages_leave_their_task_as_the_bodies_of_their_files(fmt: str) -> None:
    """`clean -o DIR`'s worker sends each page's file body and warnings (`file_record`),
    not its Result: the body the parent would have rendered from the Result."""
    policy = SitePolicy("default", output=Output(renderings=("text",), noise=fmt == "json"))
    packed = replace(policy, pack=partial(file_record, fmt=fmt, metadata=False))
    bodies, _ = _run(SiteTask("hg", _sources(3), packed))
    results, _ = _run(SiteTask("hg", _sources(3), policy))
    for i, out in bodies.items():
        outcome, result = out.outcome, results[i].outcome.result
        assert outcome.result is None and outcome.record is not None and result is not None
        assert outcome.record["body"] == render_result(result, fmt) != ""
        assert outcome.warnings == result.warnings


def test_a_page_that_killed_a_worker_is_recorded_as_that_and_the_rest_cleaned() -> None:
    task = SiteTask("hg", _sources(4), SitePolicy("sst"), poison={2: "worker died (SIGKILL)"})
    outs, _ = _run(task)
    assert outs[2].outcome.error == "worker died (SIGKILL)" and outs[2].stage == "worker"
    assert all(outs[i].outcome.result is not None for i in (0, 1, 3))


def test_a_fit_that_failed_before_makes_its_pages_errors_or_the_fallbacks() -> None:
    failed = {0: "fit exceeded the time limit of 1 s"}
    outs, _ = _run(SiteTask("hg", _sources(3), SitePolicy("sst"), fit_failed=failed))
    assert all("preparing the sst model failed: fit exceeded" in str(o.outcome.error)
               for o in outs.values())
    crawl = CrawlConfig(method="sst", fallback="alltext", min_site_pages=1).policy()
    outs, done = _run(SiteTask("hg", _sources(3), crawl, fit_failed=failed))
    assert done.model == "fallback" and done.note == f"fit stopped: {failed[0]}"
    assert all(o.outcome.record is not None for o in outs.values())


# Hosts whose registrable domain takes the list's harder rules: its private section, a
# wildcard and its exception, names in Unicode and in punycode, an unlisted top-level
# domain, a bare suffix, an IP address.
HARD_HOSTS = ["news.bbc.co.uk", "alice.blogspot.com", "blogspot.com", "x.alice.github.io",
              "a.b.kawasaki.jp", "city.kawasaki.jp", "bücher.de", "食狮.公司.cn",
              "xn--85x722f.xn--55qx5d.cn", "shop.example.unlistedtld", "co.uk", "com",
              "localhost", "192.0.2.7", "[2001:db8::1]"]


def _corpus_urls() -> list[str]:
    """Every page URL of the shared corpora (none where they are absent)."""
    urls = set()
    for index in sorted(SHARED.glob("*/index.jsonl")):
        for line in index.read_text(encoding="utf-8").splitlines():
            url = json.loads(line).get("url")
            if isinstance(url, str):
                urls.add(url)
    return sorted(urls)


def test_the_cores_suffix_list_groups_as_publicsuffixlist_does() -> None:
    """The crawl's site of a URL is its registrable domain from the suffix list compiled
    into the core (`native/src/urls.rs`); `publicsuffixlist`, which the crawl read before,
    gives the same site for the hard cases and every page URL of the shared corpora."""
    from publicsuffixlist import PublicSuffixList

    psl = PublicSuffixList()

    def reference(url: str) -> str:
        host = host_of(url)
        if host is None:
            return UNKNOWN
        with contextlib.suppress(ValueError):
            ipaddress.ip_address(host)
            return host
        return psl.privatesuffix(host) or host

    urls = [f"http://{h}/" for h in HARD_HOSTS] + _corpus_urls()
    assert site_key("http://x.alice.github.io/") == "alice.github.io"
    assert {u: site_key(u) for u in urls if site_key(u) != reference(u)} == {}


@pytest.mark.parametrize(("url", "domain"), [
    ("https://www.news.example.co.uk/a", "example.co.uk"), (None, UNKNOWN)])
def test_one_home_for_the_grouping_keys(url: str | None, domain: str) -> None:
    assert site_key(url, "domain") == domain
    row = {"id": "p", "site": "s", "year": 2020}
    assert [group_key(row, g) for g in ("site", "site,year", "none")] == ["s", "s/2020", "all"]
