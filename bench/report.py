# SPDX-License-Identifier: MIT
"""Turning session results into figures: per-run metrics, medians/min/max, ratios of devman to
each peer, the targets of PEERS.md, plots (gnuplot), and the comparison of two saved runs."""
import json
import os
import shutil
import statistics
import subprocess

from peers import DAEMONS, DEVMAN_PEERS

def session_metrics(r):
    """Flattens one session's JSON into {metric: number}."""
    m = {}
    c = r.get('coldplug')
    if c:
        if c.get('ms') is not None:
            m['coldplug_ms'] = c['ms']
        m['coldplug_cpu_s'] = c.get('cpu_s')
        m['coldplug_uevents'] = c.get('uevents_seen')
        if c.get('nodes_made') is not None:
            m['coldplug_nodes'] = c['nodes_made']
    peaks_rss, peaks_pss = [], []
    for n, s in (r.get('storms_node') or {}).items():
        # the second finish line of a daemon timed to its broadcast: the node made / gone
        for phase in ('add', 'remove'):
            for q in ('p50', 'p99', 'max'):
                if (s.get(phase) or {}).get(q) is not None:
                    m[f'storm{n}_{phase}_node_{q}_ms'] = s[phase][q]
    for n, s in (r.get('storms') or {}).items():
        for phase in ('add', 'remove'):
            for q in ('p50', 'p99', 'max'):
                if (s.get(phase) or {}).get(q) is not None:
                    m[f'storm{n}_{phase}_{q}_ms'] = s[phase][q]
        m[f'storm{n}_cpu_s'] = s['cpu_s']
        m[f'storm{n}_peak_rss_kib'] = s['peak_rss_kib']
        m[f'storm{n}_procs'] = s['peak_procs']
        m[f'storm{n}_unmatched'] = s['add_unmatched'] + s.get('remove_unmatched', 0)
        peaks_rss.append(s['peak_rss_kib'])
        peaks_pss.append(s['peak_pss_kib'])
    d = r.get('drain')
    if d:
        if d.get('ms') is not None:
            m[f'drain{d["count"]}_ms'] = d['ms']
        if d.get('node_ms') is not None:
            m[f'drain{d["count"]}_node_ms'] = d['node_ms']
        m[f'drain{d["count"]}_cpu_s'] = d['cpu_s']
        peaks_rss.append(d['peak_rss_kib'])
        peaks_pss.append(d['peak_pss_kib'])
    if peaks_rss:
        m['peak_rss_kib'] = max(peaks_rss)
        m['peak_pss_kib'] = max(peaks_pss)
    fa = r.get('fairness') or {}
    al, st = fa.get('alone') or {}, fa.get('storm') or {}
    if al.get('ms') and st.get('ms'):
        m['fair_alone_ms'] = al['ms']
        m['fair_storm_ms'] = st['ms']
        m['fair_slowdown'] = st['ms'] / al['ms']
        m['fair_stall_alone_ms'] = al['stall_ms']
        m['fair_stall_storm_ms'] = st['stall_ms']
        m['fair_overtaking'] = st.get('overtaking')
    ib, ia = r.get('idle_before'), r.get('idle_after')
    if ib:
        m['idle_rss_kib'] = ib['main_rss_kib']
        m['idle_pss_kib'] = ib['main_pss_kib']
        m['idle_tree_rss_kib'] = ib['rss_kib']
    if ib and ia:
        m['idle_rss_after_kib'] = ia['main_rss_kib']
        m['idle_growth_kib'] = ia['main_rss_kib'] - ib['main_rss_kib']
    if r.get('total_cpu_s') is not None:
        m['session_cpu_s'] = r['total_cpu_s']
    for n, s in (r.get('scale') or {}).items():
        if s.get('exit') == 0:
            m[f'scale{n}_ms'] = s['ms']
            m[f'scale{n}_maxrss_kib'] = s['maxrss_kib']
            m[f'scale{n}_us_per_device'] = s['ms'] * 1000 / s['devices']
            m[f'scale{n}_cpu_s'] = s['cpu_s']
    sc = {int(n): s for n, s in (r.get('scale') or {}).items() if s.get('exit') == 0}
    if len(sc) >= 2:
        sizes = sorted(sc)
        lo, hi = sc[sizes[0]], sc[sizes[-1]]
        m['scale_kib_per_device'] = (hi['maxrss_kib'] - lo['maxrss_kib']) / (hi['devices'] - lo['devices'])
        # CPU time (not wall time: the machine is shared) per device, largest tree over the
        # next largest: the fixed start-up cost of the smallest tree would hide a slope.
        mid = sc[sizes[-2]]
        if mid['cpu_s'] > 0:
            m['scale_linearity'] = (hi['cpu_s'] / hi['devices']) / (mid['cpu_s'] / mid['devices'])
    cl = r.get('callgrind_live') or {}
    for k in ('coldplug_ir_per_event', 'storm_ir_per_event'):
        if cl.get(k) is not None:
            m[f'callgrind_live_{k}'] = cl[k]
    cg = r.get('callgrind') or {}
    if cg.get('ir_per_device') is not None:
        m['callgrind_ir_per_device'] = cg['ir_per_device']
    return {k: v for k, v in m.items() if v is not None}


def aggregate(sessions):
    """{peer: {metric: {'median','min','max','n','values'}}} over all sessions of each peer."""
    vals = {}
    for r in sessions:
        if r.get('error'):
            continue
        for k, v in session_metrics(r).items():
            vals.setdefault(r['peer'], {}).setdefault(k, []).append(v)
    out = {}
    for peer, metrics in vals.items():
        out[peer] = {k: {'median': statistics.median(v), 'min': min(v), 'max': max(v), 'n': len(v),
                         'values': v} for k, v in metrics.items()}
    return out


def med(summary, peer, metric):
    try:
        return summary[peer][metric]['median']
    except KeyError:
        return None


def fmt(v):
    if v is None:
        return '-'
    if isinstance(v, int) or abs(v) >= 100:
        return f'{v:.0f}'
    if abs(v) >= 1:
        return f'{v:.2f}'
    return f'{v:.3f}'


# Rows of the main table: (metric, label). Storm/drain sizes are filled in from the run.
def table_rows(storms, drain):
    rows = [('coldplug_ms', 'coldplug ms (trigger + settle / last node)'),
            ('coldplug_cpu_s', 'coldplug CPU s (daemon)'),
            ('coldplug_uevents', 'coldplug uevents seen')]
    for n in storms:
        rows += [(f'storm{n}_add_p50_ms', f'storm {n} add p50 ms (finish line)'),
                 (f'storm{n}_add_p99_ms', f'storm {n} add p99 ms (finish line)'),
                 (f'storm{n}_add_max_ms', f'storm {n} add max ms (finish line)'),
                 (f'storm{n}_add_node_p50_ms', f'storm {n} add p50 ms, node made (2nd figure)'),
                 (f'storm{n}_add_node_p99_ms', f'storm {n} add p99 ms, node made (2nd figure)'),
                 (f'storm{n}_remove_p50_ms', f'storm {n} remove p50 ms (finish line)'),
                 (f'storm{n}_remove_p99_ms', f'storm {n} remove p99 ms (finish line)'),
                 (f'storm{n}_remove_node_p50_ms', f'storm {n} remove p50 ms, node gone (2nd figure)'),
                 (f'storm{n}_cpu_s', f'storm {n} CPU s (add+remove)'),
                 (f'storm{n}_peak_rss_kib', f'storm {n} peak RSS KiB (all procs)')]
    if drain:
        rows += [(f'drain{drain}_ms', f'drain of {2 * drain} queued uevents ms (finish line)'),
                 (f'drain{drain}_node_ms', f'drain of {2 * drain} queued uevents ms, nodes made (2nd figure)'),
                 (f'drain{drain}_cpu_s', 'drain CPU s')]
    rows += [('fair_alone_ms', 'fairness: backlog finished, alone ms'),
             ('fair_storm_ms', 'fairness: backlog finished, under a storm ms'),
             ('fair_slowdown', 'fairness: under a storm / alone'),
             ('fair_stall_alone_ms', 'fairness: longest wait between backlog devices, alone ms'),
             ('fair_stall_storm_ms', 'fairness: longest wait between backlog devices, under a storm ms'),
             ('fair_overtaking', 'fairness: storm devices finished before the backlog\'s last')]
    rows += [('idle_rss_kib', 'idle RSS KiB (main process)'),
             ('idle_pss_kib', 'idle PSS KiB (main process)'),
             ('idle_tree_rss_kib', 'idle RSS KiB (all procs)'),
             ('peak_rss_kib', 'peak RSS KiB (all procs)'),
             ('peak_pss_kib', 'peak PSS KiB (all procs)'),
             ('idle_growth_kib', 'idle RSS growth after storms KiB')]
    return rows


def render_table(summary, peers, rows):
    lines = []
    head = '| figure | ' + ' | '.join(peers) + ' |'
    lines.append(head)
    lines.append('|' + '---|' * (len(peers) + 1))
    for metric, label in rows:
        cells = []
        for p in peers:
            s = summary.get(p, {}).get(metric)
            if not s:
                cells.append('-')
            elif s['n'] == 1:
                cells.append(fmt(s['median']))
            else:
                cells.append(f'{fmt(s["median"])} ({fmt(s["min"])}–{fmt(s["max"])})')
        if any(c != '-' for c in cells):
            lines.append(f'| {label} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines) if len(lines) > 2 else ''


def scale_rows(scales):
    rows = []
    for n in scales:
        rows += [(f'scale{n}_ms', f'coldplug of {n} generated devices, ms'),
                 (f'scale{n}_us_per_device', f'  per device, us'),
                 (f'scale{n}_cpu_s', f'  CPU s'),
                 (f'scale{n}_maxrss_kib', f'  max RSS KiB')]
    rows += [('scale_kib_per_device', 'memory per device (largest vs smallest tree), KiB'),
             ('scale_linearity', 'CPU per device, largest / next largest tree'),
             ('callgrind_ir_per_device', 'instructions per device (callgrind, 1000 vs 100 devices)')]
    return rows


def scale_table(summary, scales):
    peers = [p for p in summary if any(k.startswith('scale') or k.startswith('callgrind_ir') for k in summary[p])]
    if not peers:
        return ''
    return 'Generated sysfs (--once):\n\n' + render_table(summary, peers, scale_rows(scales))


CALLGRIND_ROWS = [('callgrind_live_coldplug_ir_per_event', 'instructions per uevent, live coldplug'),
                  ('callgrind_live_storm_ir_per_event', 'instructions per uevent, loop-device adds')]


def callgrind_table(summary):
    peers = [p for p in summary if any(k.startswith('callgrind_live') for k in summary[p])]
    if not peers:
        return ''
    return ('The daemon under callgrind (one run):\n\n' + render_table(summary, peers, CALLGRIND_ROWS))


def render_ratios(summary, rows):
    lines = []
    for dm, others in DEVMAN_PEERS.items():
        if dm not in summary:
            continue
        others = [o for o in others if o in summary]
        body = []
        for metric, label in rows:
            a = med(summary, dm, metric)
            if a is None:
                continue
            cells = []
            for o in others:
                b = med(summary, o, metric)
                cells.append(f'{a / b:.3f}x' if b and b > 0 else '-')
            if any(c != '-' for c in cells):
                body.append(f'| {label} | ' + ' | '.join(cells) + ' |')
        if body:
            lines.append(f'\n{dm} / peer (ratio of medians, < 1 means devman is lower):\n')
            lines.append('| figure | ' + ' | '.join(others) + ' |')
            lines.append('|' + '---|' * (len(others) + 1))
            lines += body
    return '\n'.join(lines)


def per_run(sessions):
    """{peer: {run: metrics}} of the sessions without error: the runs of one invocation
    interleave every peer, so run i of devman and run i of a peer ran side by side."""
    out = {}
    for r in sessions:
        if not r.get('error') and r.get('run') is not None:
            # a run's scale or callgrind session adds its figures to the run's live ones
            out.setdefault(r['peer'], {}).setdefault(r['run'], {}).update(session_metrics(r))
    return out


# The fairness targets. Reading a storm costs every daemon something, and the storm's kernel
# work (adding loop devices, under the same sysfs locks) shares the two CPUs: the floor's own
# backlog takes 0.3-3.5x longer under the storm on this machine. What must not happen is the
# storm going ahead of what was queued: no storm device may be finished before the backlog's
# last, and the backlog may slow down at most FAIR_SLOWDOWN_LIMIT times as much as the floor's
# in the same run (a daemon that read and handled the storm first would finish the backlog
# only after the storm: hundreds of ms, 5-10x and more).
FAIR_SLOWDOWN_LIMIT = 1.5


def check_targets(doc, storm, drain):
    """The targets of round 2 (../shared/PEERS.md, issue 31), each a same-run figure: for a ratio,
    devman's figure of run i over the peer's of run i; the median over runs and the worst run
    must both hold. Returns [{'target', 'median', 'worst', 'n', 'verdict', 'unit'}], verdict
    PASS, FAIL or N/A (devman or the peer not measured)."""
    runs = per_run(doc['sessions'])
    out = []

    def verdict(name, vals, limit, unit, strict=False, worst_of=max):
        if not vals:
            out.append({'target': name, 'median': None, 'worst': None, 'n': 0, 'verdict': 'N/A', 'unit': unit})
            return
        m, w = statistics.median(vals), worst_of(vals)
        ok = (lambda v: v < limit) if strict else (lambda v: v <= limit)
        out.append({'target': name, 'median': m, 'worst': w, 'n': len(vals), 'unit': unit,
                    'verdict': 'PASS' if ok(m) and ok(w) else 'FAIL'})

    def ratio(name, dm, metric, peer, limit, strict=False, peer_metric=None):
        a, b = runs.get(dm, {}), runs.get(peer, {})
        vals = [a[i][metric] / b[i][peer_metric or metric] for i in sorted(set(a) & set(b))
                if a[i].get(metric) is not None and b[i].get(peer_metric or metric)]
        verdict(name, vals, limit, 'x', strict)

    def absolute(name, dm, metric, limit, unit, worst_of=max):
        vals = [m[metric] for m in runs.get(dm, {}).values() if m.get(metric) is not None]
        verdict(name, vals, limit, unit, worst_of=worst_of)

    s = f'storm{storm}'
    ratio('coldplug, empty rules <= 1.2x floor', 'devman-empty', 'coldplug_ms', 'floor', 1.2)
    ratio('coldplug, empty rules <= mdevd', 'devman-empty', 'coldplug_ms', 'mdevd', 1.0)
    ratio('coldplug, stock rules <= 0.2x systemd-udevd', 'devman-stock', 'coldplug_ms', 'udevd-stock', 0.2)
    for q, lim in (('p50', 0.2), ('p99', 0.1)):
        ratio(f'storm {storm} add {q}, broadcast, stock <= {lim}x systemd-udevd', 'devman-stock',
              f'{s}_add_{q}_ms', 'udevd-stock', lim)
        ratio(f'storm {storm} add {q}, broadcast, stock < eudev', 'devman-stock', f'{s}_add_{q}_ms', 'eudev-stock',
              1.0, strict=True)
    if drain:
        ratio(f'drain of {2 * drain} uevents, stock <= 0.2x systemd-udevd', 'devman-stock', f'drain{drain}_ms',
              'udevd-stock', 0.2)
        ratio(f'drain of {2 * drain} uevents, stock <= 0.5x eudev', 'devman-stock', f'drain{drain}_ms',
              'eudev-stock', 0.5)
    ratio(f'storm {storm} CPU, stock <= 0.2x systemd-udevd', 'devman-stock', f'{s}_cpu_s', 'udevd-stock', 0.2)
    ratio(f'storm {storm} CPU, stock <= 0.5x eudev', 'devman-stock', f'{s}_cpu_s', 'eudev-stock', 0.5)
    if drain:
        ratio(f'drain of {2 * drain} uevents, empty rules <= mdevd', 'devman-empty', f'drain{drain}_ms', 'mdevd', 1.0)
    ratio(f'storm {storm} CPU, empty rules <= mdevd', 'devman-empty', f'{s}_cpu_s', 'mdevd', 1.0)
    absolute('idle RSS, stock rules <= 1.5 MiB', 'devman-stock', 'idle_rss_kib', 1536, ' KiB')
    absolute('peak RSS (all processes), stock rules <= 3 MiB', 'devman-stock', 'peak_rss_kib', 3072, ' KiB')
    ratio('idle RSS, empty rules <= mdevd', 'devman-empty', 'idle_rss_kib', 'mdevd', 1.0)
    for dm in ('devman-empty', 'devman-stock'):
        vals = [abs(m['idle_growth_kib']) for m in runs.get(dm, {}).values() if m.get('idle_growth_kib') is not None]
        verdict(f'no growth ({dm}): idle RSS after storms = before +- 8 KiB', vals, 8, ' KiB')
    fs = doc['args'].get('fair_storm')
    absolute(f'fairness (stock): no device of a storm of {fs} finished before the queued backlog\'s last',
             'devman-stock', 'fair_overtaking', 0, '')
    ratio(f'fairness (stock): backlog slowdown under a storm of {fs} <= {FAIR_SLOWDOWN_LIMIT}x the floor\'s',
          'devman-stock', 'fair_slowdown', 'floor', FAIR_SLOWDOWN_LIMIT)
    # scale: separate sessions (at most 3), not paired with a peer
    for dm in ('devman-empty', 'devman-stock'):
        scale = [session_metrics(r) for r in doc['sessions'] if r['peer'] == dm and r.get('scale') and not r.get('error')]
        verdict(f'scale ({dm}): CPU per device at the largest tree <= 1.5x that at the next largest',
                [m['scale_linearity'] for m in scale if 'scale_linearity' in m], 1.5, 'x')
        verdict(f'scale ({dm}): model memory <= 1 KiB per device',
                [m['scale_kib_per_device'] for m in scale if 'scale_kib_per_device' in m], 1.0, ' KiB')
    return out


def render_targets(targets):
    lines = ['| target | median | worst run | runs | verdict |', '|---|---|---|---|---|']
    for t in targets:
        u = t['unit']
        lines.append(f'| {t["target"]} | {fmt(t["median"]) + u if t["median"] is not None else "-"} | '
                     f'{fmt(t["worst"]) + u if t["worst"] is not None else "-"} | {t["n"]} | {t["verdict"]} |')
    return '\n'.join(lines)


def render_all(doc):
    """The whole text report of a saved run (bench/run prints it; bench/compare FILE reprints it)."""
    args, meta = doc['args'], doc['meta']
    summary = report_summary(doc)
    drain = args['drain'] if 'drain' in args['workloads'] else None
    rows = table_rows(args['storms'], drain)
    out = [f'\n# devman bench — {meta["commit"]}, {meta["date"]}, kernel {meta["kernel"]}, '
           f'{args["runs"]} run(s), {meta.get("seconds", "?")} s\n']
    dc0, dc1 = meta.get('dcache_start'), meta.get('dcache_end')
    if dc0:  # runs saved before it was recorded have none
        out.append(f'Kernel dentry cache at the start: {dc0["dentries"]} dentries ({dc0["negative"]} negative)'
                   + (f', at the end: {dc1["dentries"]}' if dc1 else '') + '.\n')
    built = meta.get('built_peers') or {}
    if not meta.get('shared') and 'shared' in meta:
        out.append('Run without --shared: mdevd and eudev (built from the shared directory) were not measured; '
                   'their targets read N/A.\n')
    for name, b in built.items():
        if not b['ok']:
            out.append(f'{name} was not built: {b["why"]}\n')
    if meta.get('absent'):
        out.append(f'Not measured: {", ".join(meta["absent"])}.\n')
    lines = [f'{p}: {"processed-event broadcast on the udev netlink group" if DAEMONS[p]["finish"] == "broadcast" else "node made / gone"}'
             + (' (2nd figure: node made / gone)' if DAEMONS[p].get('node_figure') else '')
             for p in args['peers'] if p in DAEMONS]
    out.append('Finish lines: ' + '; '.join(lines) + '.\n')
    out += ['Medians over runs (min–max).\n', render_table(summary, args['peers'], rows) or '(no live figures)']
    for extra in (scale_table(summary, args['scales']), callgrind_table(summary)):
        if extra:
            out.append('\n' + extra)
    sizes = doc.get('sizes')
    if sizes:
        out.append('\n' + size_table(sizes))
    ratios = render_ratios(summary, rows + scale_rows(args['scales']) + CALLGRIND_ROWS)
    if ratios:
        out.append(ratios)
    out.append(f'\nTargets (round 2): same-run ratios, the median over runs and the worst run both must hold:\n')
    out.append(render_targets(check_targets(doc, max(args['storms']), drain)))
    return '\n'.join(out)


def size_table(sizes):
    """The size workload: per program set, the stripped programs and the shared-library closure an
    initramfs carries for them (bench/footprint.py); older results have the programs only."""
    kib = lambda b: f'{b / 1024:.0f}'  # noqa: E731
    out = ['| program | files | stripped KiB | libraries | libraries stripped KiB | initramfs KiB |',
           '|---|---|---|---|---|---|']
    for name, s in sizes.items():
        libs = s.get('lib_count')
        missing = f' ({len(s["missing"])} not found: {" ".join(s["missing"])})' if s.get('missing') else ''
        out.append(f'| {name}{" (" + s["label"] + ")" if s.get("label") else ""} | '
                   f'{" ".join(os.path.basename(f) for f in s["files"])} | {kib(s["stripped_bytes"])} | '
                   f'{"?" if libs is None else libs}{missing} | '
                   f'{"?" if libs is None else kib(s["libs_stripped_bytes"])} | '
                   f'{"?" if libs is None else kib(s["total_stripped_bytes"])} |')
    dm, ud = sizes.get('devman'), sizes.get('systemd-udevd')
    if dm and ud:
        out.append(f'\ndevman / systemd-udevd installed size (stripped): '
                   f'{dm["stripped_bytes"] / ud["stripped_bytes"]:.3f}x')
        if 'total_stripped_bytes' in dm and 'total_stripped_bytes' in ud:
            out.append(f'devman / systemd-udevd initramfs footprint (programs + libraries, stripped): '
                       f'{dm["total_stripped_bytes"] / ud["total_stripped_bytes"]:.3f}x')
    if dm and dm.get('libs'):
        out.append('devman\'s libraries: ' + ', '.join(
            f'{os.path.basename(r["path"])} {kib(r["stripped_bytes"])}' for r in dm['libs']) + ' (KiB, stripped)')
    return '\n'.join(out)


def report_summary(doc):
    # Recomputed from the sessions, so an old file is shown with today's figures and targets.
    return aggregate(doc['sessions'])


# ---------------------------------------------------------------- plots

def plot(doc, sessions, outdir, stem):
    """Latency CDF of the largest storm's adds, and the scaling curve. Returns the PNG paths."""
    if not shutil.which('gnuplot'):
        return []
    pngs = []
    storm = str(max(doc['args']['storms']))
    lat = {}
    for r in sessions:
        v = ((r.get('storms') or {}).get(storm) or {}).get('add_latencies_ms')
        if v:
            lat.setdefault(r['peer'], []).extend(v)
    datdir = os.path.join(outdir, stem + '.data')
    os.makedirs(datdir, exist_ok=True)
    if lat:
        plots = []
        for peer, v in lat.items():
            v = sorted(x for x in v if x > 0)
            path = os.path.join(datdir, f'lat-{peer}.dat')
            with open(path, 'w') as f:
                for i, x in enumerate(v):
                    f.write(f'{x} {(i + 1) / len(v)}\n')
            plots.append(f"'{path}' using 1:2 with lines lw 2 title '{DAEMONS[peer]['label']}'")
        png = os.path.join(outdir, stem + '-latency.png')
        script = f"""set terminal pngcairo size 1000,600
set output '{png}'
set title 'Storm of {storm} loop devices: kernel uevent -> finish line (broadcast of udev-compatible daemons, node of node-only peers)'
set logscale x
set xlabel 'latency, ms (log)'
set ylabel 'fraction of devices'
set key bottom right
set grid
plot {', '.join(plots)}
"""
        if subprocess.run(['gnuplot'], input=script, text=True).returncode == 0:
            pngs.append(png)
    scale = {}
    for r in sessions:
        for n, s in (r.get('scale') or {}).items():
            if s.get('exit') == 0:
                scale.setdefault(r['peer'], {}).setdefault(int(n), []).append(s)
    if scale:
        t_plots, m_plots = [], []
        for peer, by_n in scale.items():
            path = os.path.join(datdir, f'scale-{peer}.dat')
            with open(path, 'w') as f:
                for n in sorted(by_n):
                    ms = statistics.median(s['ms'] for s in by_n[n])
                    rss = statistics.median(s['maxrss_kib'] for s in by_n[n])
                    cpu = statistics.median(s['cpu_s'] for s in by_n[n])
                    f.write(f'{n} {ms} {cpu} {rss}\n')
            label = DAEMONS[peer]['label']
            t_plots.append(f"'{path}' using 1:2 with linespoints lw 2 title '{label}, wall'")
            t_plots.append(f"'{path}' using 1:($3*1000) with linespoints dt 2 lw 2 title '{label}, CPU'")
            m_plots.append(f"'{path}' using 1:($4/1024) with linespoints lw 2 title '{label}'")
        png = os.path.join(outdir, stem + '-scaling.png')
        script = f"""set terminal pngcairo size 1000,900
set output '{png}'
set multiplot layout 2,1 title 'Coldplug of a generated sysfs tree (--once); log-log: linear scaling is a slope of 1'
set logscale xy
set grid
set key top left
set xlabel 'devices'
set ylabel 'ms'
plot {', '.join(t_plots)}
set ylabel 'max RSS, MiB'
plot {', '.join(m_plots)}
unset multiplot
"""
        if subprocess.run(['gnuplot'], input=script, text=True).returncode == 0:
            pngs.append(png)
    return pngs


# ---------------------------------------------------------------- comparison of two saved runs

def compare(a, b):
    sa, sb = a['summary'], b['summary']
    lines = [f"A: {a['meta'].get('commit', '?')} {a['meta'].get('date', '')}",
             f"B: {b['meta'].get('commit', '?')} {b['meta'].get('date', '')}", '',
             '| peer | figure | A median | B median | B/A |', '|---|---|---|---|---|']
    for peer in sorted(set(sa) & set(sb)):
        for metric in sorted(set(sa[peer]) & set(sb[peer])):
            x, y = sa[peer][metric]['median'], sb[peer][metric]['median']
            ratio = f'{y / x:.3f}' if x else '-'
            lines.append(f'| {peer} | {metric} | {fmt(x)} | {fmt(y)} | {ratio} |')
    for peer in sorted(set(sa) ^ set(sb)):
        lines.append(f'| {peer} | (only in {"A" if peer in sa else "B"}) | | | |')
    return '\n'.join(lines)


def load(path):
    with open(path) as f:
        return json.load(f)
