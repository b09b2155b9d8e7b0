"""A self-contained HTML page: an estate summary (hosts, VMs, findings by rule and severity), per
host the NUMA map as SVG, per VM its default and recommended layouts side by side, then the
findings with their fixes and links to the rule docs.

The page's size is bounded by construction. A VM's own maps each draw every thread of its host
(about 27 KB each), which is the point of a spec's report of a few VMs but made a 10,000-VM
estate a 283 MB page no browser opens. So each VM's own maps are drawn on a page of at most
MAX_VM_MAPS VMs (the page is then as it always was); on a larger page, for the MAX_VM_MAPS VMs
with the most severe findings (then in report order), and the page says so and how many it left
out. Every host keeps its map, which shows every VM as placed, and every VM keeps its row in the
table, its article (layout, reasons, findings): the page grows by a bounded amount per VM, host
and finding, never by a host drawing per VM. It is written in pieces (per file section), so a
large page is never held whole.

Nothing on the page is fetched (no script, font, stylesheet or image from elsewhere), so it opens
the same from a CI artifact, an e-mail or a file share. The stylesheet lays the page out for a
phone (a map keeps its size and scrolls sideways in its own box, since a 2×56-core host scaled
to a phone's width has unreadable threads; side-by-side layouts stack) and for print (no backgrounds lost, no map
split across pages). Every piece of user input is HTML-escaped where it lands, and attributes used
to find things (`data-host`, `data-vm`, `data-rule`) carry the same escaped text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from html import escape

import advisor
import advisor.output.hostmaps as hostmaps
import advisor.output.numamap as numamap
from advisor.output.describe import by_file, files_and_estates, fix_lines, report_files, topology_summary, totals
from advisor.output.escape import command_safe, xml
from advisor.report.findings import Finding, HostResult, Run, VmResult
from advisor.vocab import SEVERITY_RANK

RULE_DOCS = "https://github.com/vsphere-advisor/advisor/blob/v{version}/docs/rules.md#{anchor}"

# Up to this many VMs, every VM's own maps are drawn (every example and hand-written spec set is
# far below it); beyond, only this many VMs' are: 100 VMs × 2 layouts × about 27 KB is a few MB.
MAX_VM_MAPS = 100

# Paths, VM and host names and URLs come from outside and can be any length, and fonts differ from
# machine to machine: any text may break anywhere (inherited from body), so none widens the page.
_STYLE = """
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.4}
body{margin:0 auto;max-width:80rem;padding:1rem;color:#111;background:#fff;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.25rem;border-bottom:2px solid #333;margin-top:2rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
.totals{font-weight:bold}.sev-error{color:#b00020}.sev-warning{color:#8a5a00}.sev-info{color:#0b5394}
.maps{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
figure{margin:0;break-inside:avoid;max-width:100%}figcaption{font-size:.9rem;max-width:36rem}
.map-scroll{max-width:100%;overflow-x:auto}
svg.numa-map{display:block;max-width:none;font-family:inherit}
table.summary{border-collapse:collapse;margin:.5rem 0}
.summary th,.summary td{border:1px solid #ccc;padding:.15rem .5rem;text-align:left}
.summary td.n{text-align:right}
.table-scroll{max-width:100%;overflow-x:auto}
table.vm-table{border-collapse:collapse;font-size:.9rem}
.vm-table th,.vm-table td{border:1px solid #ccc;padding:.15rem .4rem;text-align:left;vertical-align:top}
.vm-table td.n{text-align:right}.vm-table td.wide{min-width:12rem}
ul.findings{list-style:none;padding:0}
li.finding{border-left:4px solid #999;padding:.3rem .6rem;margin:.5rem 0;background:#fafafa;break-inside:avoid}
li.finding-error{border-color:#b00020}li.finding-warning{border-color:#c98a00}li.finding-info{border-color:#0b5394}
.rule{font-weight:bold;font-family:ui-monospace,monospace}
pre{white-space:pre-wrap;background:#f0f0f0;padding:.3rem .5rem;margin:.3rem 0}
.muted{color:#555;font-size:.9rem}
@media print{body{max-width:none;padding:0}a{color:inherit}h2{break-after:avoid}
  *{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
"""


def render(run: Run) -> str:
    return "".join(render_pieces(run))


def render_pieces(run: Run) -> Iterator[str]:
    """The page in pieces (head, summary, estate, one per file section, the rest), so writing a
    large page never holds it whole; their concatenation is render()'s text."""
    palette = numamap.colours([vm.name for vm in run.vms])
    if run.command == "topology":  # no rule ran: totals of zero would read as a clean bill
        head = ("<p class=\"scope\">NUMA maps only: <code>advisor topology</code> evaluates no rules; "
                "<code>advisor check</code> reports the findings.</p>")
    else:
        head = f"<p class=\"totals\">{_text(totals(run))}</p>"
    shown = [f for f in run.findings if f.suppressed is None]
    drawn = _drawn(run)
    yield ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           f"<meta name=\"generator\" content=\"advisor {escape(advisor.__version__)}\">"
           f"<title>advisor report</title><style>{_STYLE}</style></head><body>"
           f"<header><h1>advisor report</h1>{head}</header>" + _summary(run) + _omitted(run, drawn))
    if run.vms and run.command != "topology":  # verdicts need rules
        yield _estate(run)
    if run.errors:
        yield ("<section class=\"errors\"><h2>Input errors</h2><ul>"
               + "".join(f"<li class=\"sev-error\">{_text(str(e))}</li>" for e in run.errors) + "</ul></section>")
    placed: set[int] = set()
    hosts, vms, findings = by_file(run.hosts), by_file(run.vms), by_file(shown)
    for file in report_files(run):
        yield _file_section(file, hosts.get(file, []), vms.get(file, []), findings.get(file, []), placed, palette,
                            drawn)
    rest = [f for f in shown if id(f) not in placed]
    if rest:
        yield "<section><h2>Other findings</h2>" + _findings(rest) + "</section>"
    notes = run.all_notes()
    if notes:
        yield ("<section class=\"notes\"><h2>Notes</h2><ul>"
               + "".join(f"<li>{_text(n)}</li>" for n in notes) + "</ul></section>")
    yield "</body></html>\n"


def _drawn(run: Run) -> set[int] | None:
    """Whose own maps the page draws (ids of VM results), None for every VM's: all on a page of at
    most MAX_VM_MAPS VMs, else the MAX_VM_MAPS whose worst shown finding is the most severe, ties in
    report order (a VM without findings has nothing a map of its own would explain). `advisor
    topology` runs no rules and shows layouts only: its first MAX_VM_MAPS VMs."""
    if len(run.vms) <= MAX_VM_MAPS:
        return None
    if run.command == "topology":
        return {id(vm) for vm in run.vms[:MAX_VM_MAPS]}
    from advisor.report.vmrows import worst_findings

    ranked = sorted((-SEVERITY_RANK[top.severity], index)
                    for index, top in enumerate(worst_findings(run)) if top is not None)
    return {id(run.vms[index]) for _, index in ranked[:MAX_VM_MAPS]}


def _omitted(run: Run, drawn: set[int] | None) -> str:
    """On a page that leaves VMs' own maps out, the line that says so, before anything else."""
    if drawn is None:
        return ""
    left = len(run.vms) - len(drawn)
    which = "the first in report order" if run.command == "topology" else "those with the most severe findings"
    return (f"<p class=\"maps-omitted\" data-vms=\"{len(run.vms)}\" data-drawn=\"{len(drawn)}\""
            f" data-omitted=\"{left}\">{len(run.vms)} VMs, more than {MAX_VM_MAPS}: each host's map shows "
            f"every VM as placed; a VM's own layouts are drawn for {len(drawn)} VM(s), {which}, and left out "
            f"for the other {left}, so that the page stays small enough to open.</p>")


def _summary(run: Run) -> str:
    """The estate at a glance: files (and the running estates read: an RVTools export or a vCenter
    is one source, not the spec per host it became), hosts, VMs (and instances), then shown findings
    per rule and severity (suppressed ones are counted apart, as in the totals)."""
    instances = sum(max(1, v.count) for v in run.vms)
    files, kinds = files_and_estates(run)
    if not kinds:
        files = files or len({v.file for v in run.vms})
    rows = [*([("files", files)] if files or not kinds else []), *((f"{kind}s", len(e)) for kind, e in kinds.items()),
            ("hosts", len(run.hosts)), ("VMs", len(run.vms)), ("VM instances (count:)", instances)]
    out = ["<section class=\"summary\"><h2>Summary</h2><table class=\"summary estate\"><tbody>"]
    out += [f"<tr data-count=\"{escape(key)}\"><th scope=\"row\">{escape(key)}</th><td class=\"n\">{n}</td></tr>"
            for key, n in rows]
    out.append("</tbody></table>")
    if run.command != "topology":
        per_rule: dict[tuple[str, str, str], int] = {}
        for f in run.findings:
            if f.suppressed is None:
                key = (f.rule, f.name, f.severity)
                per_rule[key] = per_rule.get(key, 0) + 1
        order = {"error": 0, "warning": 1, "info": 2}
        out.append("<table class=\"summary findings-by-rule\"><thead><tr><th>rule</th><th>severity</th>"
                   "<th>findings</th></tr></thead><tbody>")
        for (rule, name, severity), n in sorted(per_rule.items(), key=lambda kv: (order.get(kv[0][2], 3), kv[0][0])):
            out.append(f"<tr data-summary-rule=\"{_text(rule)}\" data-severity=\"{escape(severity)}\">"
                       f"<td><span class=\"rule\">{_text(rule)}</span> {_text(name)}</td>"
                       f"<td class=\"sev-{escape(severity)}\">{escape(severity)}</td><td class=\"n\">{n}</td></tr>")
        if not per_rule:
            out.append("<tr><td colspan=\"3\">no findings</td></tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return "".join(out)


def _estate(run: Run) -> str:
    """The estate before the per-file sections: VMs, hosts, clusters and VMs per verdict, the
    assumptions the hosts rest on (with how many hosts each), then one row per VM, the rows of
    `--format table|csv|xlsx` (advisor.report.vmrows). The table scrolls in its own box: eleven
    columns do not fit a phone, and the page itself must not widen."""
    from advisor.report.vmrows import COLUMNS, TITLES, rows, verdicts

    table = rows(run)
    counts = [("VMs", len(table)), ("hosts", len(run.hosts)),
              ("clusters", len({r["cluster"] for r in table if r["cluster"]}))]
    out = ["<section class=\"estate\" id=\"vms\"><h2>VMs</h2><table class=\"summary estate-counts\"><tbody>"]
    out += [f"<tr data-estate=\"{key}\"><th scope=\"row\">{key}</th><td class=\"n\">{n}</td></tr>" for key, n in counts]
    out += [f"<tr data-verdict=\"{verdict}\"><th scope=\"row\" class=\"sev-{verdict}\">{verdict}</th>"
            f"<td class=\"n\">{n}</td></tr>" for verdict, n in verdicts(table).items()]
    out.append("</tbody></table>")
    assumed: dict[str, int] = {}
    for host in run.hosts:
        for assumption in host.capacity.get("assumptions", ()):
            assumed[assumption] = assumed.get(assumption, 0) + 1
    if assumed:
        out.append("<h3>Assumptions</h3><ul class=\"assumptions\">" + "".join(
            f"<li data-hosts=\"{n}\">{_text(a)} ({n} host{'s' if n > 1 else ''})</li>" for a, n in assumed.items())
                   + "</ul>")
    wide = {"vnuma", "top_finding", "assumptions"}
    out.append("<div class=\"table-scroll\"><table class=\"vm-table\"><thead><tr>"
               + "".join(f"<th data-column=\"{c}\">{escape(TITLES[c])}</th>" for c in COLUMNS) + "</tr></thead><tbody>")
    for row in table:
        cells = "".join(f"<td class=\"{'n' if isinstance(row[c], int) else 'wide' if c in wide else ''}\">"
                        f"{_text(row[c])}</td>" for c in COLUMNS)
        out.append(f"<tr data-vm=\"{_text(row['vm'])}\" data-verdict=\"{escape(row['verdict'])}\">{cells}</tr>")
    out.append("</tbody></table></div></section>")
    return "".join(out)


def _text(value: object) -> str:
    return xml(value)


def _file_section(file: str, hosts: list[HostResult], vms: list[VmResult], mine: list[Finding], placed: set[int],
                  palette: dict[str, str], drawn: set[int] | None) -> str:
    out = [f"<section class=\"file\" data-file=\"{_text(file)}\"><h2>{_text(file)}</h2>"]
    for host in hosts:
        own = [f for f in mine if f.vm is None and f.subject == f"host {host.name}"]
        placed.update(id(f) for f in own)
        out.append(_host(host, [v for v in vms if v.host == host.name], own, palette))
    for vm in vms:
        own = [f for f in mine if f.vm == vm.name]
        placed.update(id(f) for f in own)
        out.append(_vm(vm, hosts, own, palette, vms, drawn is None or id(vm) in drawn))
    rest = [f for f in mine if id(f) not in placed]
    if rest:
        placed.update(id(f) for f in rest)
        out.append("<h3>Other findings</h3>" + _findings(rest))
    out.append("</section>")
    return "".join(out)


def _host(host: HostResult, vms: list[VmResult], findings: list[Finding], palette: dict[str, str]) -> str:
    layout = hostmaps.host_map(host, vms)
    picture = numamap.svg(layout, hostmaps.host_caption(host), palette)
    return (f"<section class=\"host\" data-host=\"{_text(host.name)}\"><h3>host {_text(host.summary)}</h3>"
            f"<figure class=\"host-map\"><div class=\"map-scroll\">{picture}</div></figure>"
            + (_findings(findings) if findings else "") + "</section>")


def _vm(vm: VmResult, hosts: list[HostResult], findings: list[Finding], palette: dict[str, str],
        neighbours: list[VmResult], maps: bool = True) -> str:
    count = f" ×{vm.count}" if vm.count > 1 else ""
    where = f" on {_text(vm.host)}" if vm.host else ""
    out = [f"<article class=\"vm\" data-vm=\"{_text(vm.name)}\"><h3>vm {_text(vm.name)}{count}{where}</h3>",
           f"<p class=\"topology\">{_text(topology_summary(vm.topology))}</p>"]
    host = next((h for h in hosts if h.name == vm.host), None)
    if host is not None and vm.layouts and not maps:
        out.append("<p class=\"muted map-omitted\">own layouts not drawn on a page this large: "
                   "the host's map shows where it is placed</p>")
    elif host is not None and vm.layouts:
        out.append("<div class=\"maps\">")
        for layout in vm.layouts:
            drawn = hostmaps.layout_map(host, vm, layout, [v for v in neighbours if v.host == host.name])
            where = "placed beside the host's other VMs (grey)" if numamap.has_others(drawn) else "alone on the host"
            caption = f"{layout.title} ({where}): {layout.topology.get('summary', '')}"
            out.append(f"<figure class=\"layout\" data-layout=\"{_text(layout.title)}\">"
                       f"<div class=\"map-scroll\">"
                       f"{numamap.svg(drawn, layout.title, palette)}</div>"
                       f"<figcaption>{_text(caption)}</figcaption></figure>")
        out.append("</div>")
    for reason in (vm.topology or {}).get("reasons", []):
        out.append(f"<p class=\"muted\">· {_text(reason)}</p>")
    for note in (vm.topology or {}).get("uncertain", []):
        out.append(f"<p class=\"muted\">? uncertain: {_text(note)}</p>")
    if findings:
        out.append(_findings(findings))
    out.append("</article>")
    return "".join(out)


def _findings(findings: Iterable[Finding]) -> str:
    items = []
    for f in findings:
        where = (f.file or "") + (f":{f.line}" if f.line else "")
        fix = fix_lines(f.fix)
        refs = "".join(f"<li>{_reference(r)}</li>" for r in f.references)
        items.append(
            f"<li class=\"finding finding-{escape(f.severity)}\" data-rule=\"{_text(f.rule)}\""
            f" data-severity=\"{escape(f.severity)}\">"
            f"<a class=\"rule\" href=\"{escape(_rule_doc(f))}\">{_text(f.rule)}</a> "
            f"<span class=\"sev sev-{escape(f.severity)}\">{escape(f.severity)}</span> "
            f"<span class=\"subject\">{_text(f.subject)}</span> <span class=\"muted\">{_text(where)}</span>"
            f"<p class=\"message\">{_text(f.message)}</p>"
            # One line per fix line: each begins with a key from outside, so none may begin with `::`.
            + (f"<pre class=\"fix\">{chr(10).join(command_safe(xml(line)) for line in fix)}</pre>" if fix else "")
            + (f"<ul class=\"refs muted\">{refs}</ul>" if refs else "")
            + "</li>")
    return "<ul class=\"findings\">" + "".join(items) + "</ul>"


def _rule_doc(f: Finding) -> str:
    anchor = "-".join(part for part in (f.rule.lower(), f.name.lower()) if part)
    return RULE_DOCS.format(version=advisor.__version__, anchor=anchor)


def _reference(text: str) -> str:
    """A reference with any http(s) URL in it made a link (the URL whole, never cut)."""
    import re

    out, last = [], 0
    for match in re.finditer(r"https?://[^\s<>\"]+", text):
        out.append(_text(text[last:match.start()]))
        url = match.group().rstrip(".,;)")
        out.append(f"<a href=\"{xml(url)}\">{xml(url)}</a>")
        last = match.start() + len(url)
    out.append(_text(text[last:]))
    return "".join(out)
