"""rs-trafilatura worker: run by a CPython 3.12 interpreter (its wheels exist only for 3.12).

Started by `sitesift.bench.py312.Worker` as `python -I rs_worker.py`; imports nothing of
sitesift. Protocol, one JSON object per line: it first writes {"version": ...}; then for each
{"html": ..., "url": ..., "markdown": bool} read from stdin it writes {"text": ..., "ms": ...,
"cpu_ms": ..., "page_type": ...} (with "markdown": true, the text is rs-trafilatura's markdown
output; "page_type" is the type it extracted the page as) or {"error": ..., "ms": ...}, where
ms times the extract call alone. A request's optional "page_type" forces one of
rs-trafilatura's page types, or with "url" the type its URL heuristics alone give, in place
of its classifier's (`benchmarks/rs_page_types.py`).
"""

import json
import sys
import time


def main() -> int:
    out = sys.stdout
    try:
        import rs_trafilatura
    except ImportError as exc:
        out.write(json.dumps({"error": f"cannot import rs_trafilatura: {exc}"}) + "\n")
        out.flush()
        return 1
    out.write(json.dumps({"version": getattr(rs_trafilatura, "__version__", "?")}) + "\n")
    out.flush()
    for line in sys.stdin:
        request = json.loads(line)
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            markdown = bool(request.get("markdown"))
            asked = {"output_markdown": True} if markdown else {}
            page_type = request.get("page_type")
            if page_type == "url":
                page_type = rs_trafilatura.classify_url(request.get("url") or "")[0]
            if page_type:
                asked["page_type"] = page_type
            result = rs_trafilatura.extract(request["html"], url=request.get("url"), **asked)
            text = result.content_markdown if markdown else result.main_content
            reply = {"text": text or "", "page_type": getattr(result, "page_type", None)}
        except BaseException as exc:  # a Rust panic arrives as a BaseException subclass
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        reply["ms"] = (time.perf_counter() - start) * 1000
        reply["cpu_ms"] = (time.thread_time() - cpu) * 1000
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
