package dev.deja.rules.haproxy;

import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.HaproxyRuntime;
import dev.deja.model.haproxy.RuntimeStats;
import dev.deja.model.haproxy.Section;
import dev.deja.model.prometheus.LivePeaks;
import dev.deja.model.prometheus.PrometheusPeaks;
import java.util.ArrayList;
import java.util.List;

/**
 * IL-0264, IL-0495: live saturation read from HAProxy's runtime API, stats page CSV or Prometheus
 * exporter, or from Prometheus over a window. A frontend whose peak sessions since start (show stat
 * smax) reached warnPercent of its limit (slim), or a process whose current connections (show info
 * CurrConns) reached warnPercent of Maxconn; or, from Prometheus ({@code --prometheus}), a frontend
 * whose peak of haproxy_frontend_current_sessions over the window reached warnPercent of
 * haproxy_frontend_limit_sessions, per instance; high at highPercent. With the configuration
 * scanned too, the finding names the directive that sets the limit. Not a {@link HaproxyRule}: it
 * judges the runtime figures, and reads every configuration only to find the directive behind a
 * limit.
 */
public final class SessionsNearLimit implements Rule {
    @Override
    public String id() {
        return "haproxy-sessions-near-limit";
    }

    @Override
    public SourceKind source() {
        return SourceKind.HAPROXY;
    }

    @Override
    public List<Class<?>> parts() {
        return List.of(HaproxyRuntime.class, PrometheusPeaks.class);
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        int warn = ctx.intParameter("warnPercent");
        int high = ctx.intParameter("highPercent");
        List<Finding> out = new ArrayList<>();
        List<HaproxyConfig> configs = HaproxyRule.configs(snapshot);
        snapshot.part(PrometheusPeaks.class)
                .ifPresent(p -> out.addAll(overWindow(p, configs, warn, high, ctx)));
        HaproxyRuntime rt = snapshot.part(HaproxyRuntime.class).orElse(null);
        if (rt == null) {
            return out;
        }
        for (HaproxyRuntime.Instance in : rt.instances()) {
            RuntimeStats.Info info =
                    in.info().orElse(null); // the stats page's CSV has no process figures
            List<RuntimeStats.Row> rows = in.rows();
            if (info != null
                    && info.maxConn() > 0
                    && info.currConns() * 100 >= (long) warn * info.maxConn()) {
                out.add(process(in, info, configs, warn, high, ctx));
            }
            for (RuntimeStats.Row r : rows) {
                if (!r.type().equals("frontend")
                        || r.slim() <= 0
                        || r.smax() < 0
                        || r.smax() * 100 < (long) warn * r.slim()) {
                    continue;
                }
                out.add(frontend(in, r, rows, configs, warn, high, ctx));
            }
        }
        return out;
    }

    /** The finding for a process whose current connections near Maxconn. */
    private static Finding process(
            HaproxyRuntime.Instance in,
            RuntimeStats.Info info,
            List<HaproxyConfig> configs,
            int warn,
            int high,
            RuleContext ctx) {
        long p = Notes.pct(info.currConns(), info.maxConn());
        Location loc = new Location(in.address(), null, null, null, "process", null, null, null);
        String where = "";
        for (HaproxyConfig c : configs) {
            Directive d = Frontends.globalMaxconn(c);
            if (d != null) {
                loc = Location.section(d.file(), d.line(), null, "global");
                where = "; the limit is set by global maxconn at " + d.where();
                break;
            }
        }
        return saturated(
                ctx.finding(
                        loc,
                        "HAProxy at "
                                + in.address()
                                + " holds "
                                + info.currConns()
                                + " of "
                                + info.maxConn()
                                + " connections ("
                                + p
                                + "%, "
                                + in.format().processFigures
                                + "; connection rate "
                                + info.connRate()
                                + "/s, peak "
                                + info.maxConnRate()
                                + "/s)"
                                + where
                                + ": new connections wait in the kernel's backlog when it is full"),
                info.currConns() * 100 >= (long) high * info.maxConn(),
                in.address() + " process",
                new Figure.Saturation(
                        "process", in.address(), info.currConns(), info.maxConn(), warn, high),
                ctx);
    }

    /** The finding for a frontend whose peak sessions since start near its limit. */
    private static Finding frontend(
            HaproxyRuntime.Instance in,
            RuntimeStats.Row r,
            List<RuntimeStats.Row> rows,
            List<HaproxyConfig> configs,
            int warn,
            int high,
            RuleContext ctx) {
        long p = Notes.pct(r.smax(), r.slim());
        Limit limit = limitOf(configs, in.address(), r.proxy());
        Location loc = limit.loc();
        String where = limit.where();
        List<String> extra = new ArrayList<>();
        if (r.dcon() > 0) {
            extra.add(r.dcon() + " connections denied (dcon)");
        }
        if (r.dreq() > 0) {
            extra.add(r.dreq() + " requests denied (dreq)");
        }
        long qmax = queueMax(rows, r.proxy());
        if (qmax > 0) {
            extra.add("a queue of up to " + qmax + " (qmax)");
        }
        return saturated(
                ctx.finding(
                        loc,
                        "frontend "
                                + r.proxy()
                                + " at "
                                + in.address()
                                + " reached "
                                + r.smax()
                                + " of "
                                + r.slim()
                                + " sessions ("
                                + p
                                + "%, "
                                + in.format().sessionFigures
                                + "; now "
                                + r.scur()
                                + ", "
                                + r.stot()
                                + " since start, rate peak "
                                + r.rateMax()
                                + "/s)"
                                + where
                                + (extra.isEmpty() ? "" : "; " + String.join(", ", extra))
                                + ": at the limit, new connections wait unaccepted"),
                r.smax() * 100 >= (long) high * r.slim(),
                in.address() + " frontend " + r.proxy(),
                new Figure.Saturation(
                        "frontend " + r.proxy(), in.address(), r.smax(), r.slim(), warn, high),
                ctx);
    }

    /** The finding, high once the figure reached highPercent, with its key and figure. */
    private static Finding saturated(
            RuleContext.FindingBuilder b,
            boolean high,
            String key,
            Figure.Saturation figure,
            RuleContext ctx) {
        return b.severity(high ? Severity.HIGH : ctx.metadata().severity())
                .key(key)
                .figure(figure)
                .build();
    }

    /** Where a frontend's finding points and what the message says of its limit. */
    private record Limit(Location loc, String where) {}

    /**
     * The frontend's maxconn directive (own or from its defaults) when a scanned configuration
     * holds the frontend, else the live source itself.
     */
    private static Limit limitOf(List<HaproxyConfig> configs, String address, String proxy) {
        Section s = section(configs, proxy);
        if (s == null) {
            return new Limit(
                    new Location(address, null, "frontend", null, proxy, null, null, null), "");
        }
        Directive d = s.effective("maxconn");
        if (d != null && Frontends.zero(d)) {
            return new Limit(
                    Notes.at(s, d),
                    "; maxconn at "
                            + d.where()
                            + " reads as 0 (HAProxy's atol), no limit of its own: the global"
                            + " maxconn applies");
        }
        return d != null
                ? new Limit(Notes.at(s, d), "; the limit is set by maxconn at " + d.where())
                : new Limit(
                        Notes.at(s),
                        "; "
                                + s.label()
                                + " ("
                                + s.where()
                                + ") sets no maxconn, own or from its"
                                + " defaults");
    }

    /**
     * From Prometheus: a frontend whose peak of current sessions over the window reached
     * warnPercent of its session limit, per instance (the process figures are
     * lb-connections-near-capacity's, with the spread across instances).
     */
    private static List<Finding> overWindow(
            PrometheusPeaks p, List<HaproxyConfig> configs, int warn, int high, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LivePeaks.Peak x : LivePeaks.frontends(p)) {
            if (x.limit() <= 0 || x.peak() * 100 < (double) warn * x.limit()) {
                continue;
            }
            Limit limit = limitOf(configs, x.instance(), x.proxy());
            Location loc = limit.loc();
            String where = limit.where();
            long pct = (long) Math.floor(x.percent());
            out.add(
                    saturated(
                            ctx.finding(
                                    loc,
                                    "frontend "
                                            + x.proxy()
                                            + " at "
                                            + x.instance()
                                            + " reached "
                                            + LivePeaks.num(x.peak())
                                            + " of "
                                            + LivePeaks.num(x.limit())
                                            + " sessions in the last "
                                            + p.window()
                                            + " ("
                                            + pct
                                            + "%, Prometheus "
                                            + p.url()
                                            + ": max_over_time of "
                                            + x.series()
                                            + ")"
                                            + where
                                            + ": at the limit, new connections wait unaccepted"),
                            x.peak() * 100 >= (double) high * x.limit(),
                            "prometheus " + x.instance() + " frontend " + x.proxy(),
                            new Figure.Saturation(
                                    "frontend " + x.proxy(),
                                    x.instance(),
                                    x.peak(),
                                    x.limit(),
                                    warn,
                                    high),
                            ctx));
        }
        return out;
    }

    /**
     * The largest queue (qmax) of a proxy of that name (backend and its servers; a listen section
     * is both).
     */
    private static long queueMax(List<RuntimeStats.Row> rows, String proxy) {
        long q = -1;
        for (RuntimeStats.Row r : rows) {
            if (r.proxy().equals(proxy)) {
                q = Math.max(q, r.qmax());
            }
        }
        return q;
    }

    private static Section section(List<HaproxyConfig> configs, String name) {
        for (HaproxyConfig c : configs) {
            for (Section s : c.sections()) {
                if (s.acceptsClients() && name.equals(s.name())) {
                    return s;
                }
            }
        }
        return null;
    }
}
