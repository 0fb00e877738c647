package dev.deja.report;

import dev.deja.engine.Figure;
import java.util.Locale;

/**
 * A finding's {@link Figure} drawn as inline SVG for the HTML report: no script, no external asset
 * (the page's Content-Security-Policy allows neither), text in the SVG so that it reads without
 * colours and prints. Every number drawn is also a {@code data-} attribute of its mark, so a test
 * (or a reader's tool) compares the picture with the finding's own figures.
 */
final class Figures {
    private Figures() {}

    /** The plotting width of every figure, in SVG user units. */
    static final int W = 640;

    private static final String RED = "#b3261e";
    private static final String AMBER = "#b26a00";
    private static final String BLUE = "#1f5f99";
    private static final String GREY = "#d9d9d9";
    private static final String INK = "#222";

    /** The figure as a {@code <figure>} element, or "" for none. */
    static String html(Figure f) {
        if (f == null) {
            return "";
        }
        if (f instanceof Figure.Slots s) {
            return slots(s);
        }
        if (f instanceof Figure.ProbeWindows p) {
            return probes(p);
        }
        if (f instanceof Figure.ZoneTargets z) {
            return zones(z);
        }
        return saturation((Figure.Saturation) f);
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String px(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static StringBuilder open(String kind, String label, int height) {
        return new StringBuilder("<figure class=\"fig fig-")
                .append(kind)
                .append(
                        "\"><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure\" data-figure=\"")
                .append(kind)
                .append("\" viewBox=\"0 0 ")
                .append(W + 40)
                .append(' ')
                .append(height)
                .append("\" width=\"100%\" role=\"img\" aria-label=\"")
                .append(HtmlReporter.esc(label))
                .append("\"><title>")
                .append(HtmlReporter.esc(label))
                .append("</title>");
    }

    /** The figure's title, at its top left. */
    private static void title(StringBuilder h, String s) {
        text(h, 20, 22, "start", "t-title", s);
    }

    private static void text(
            StringBuilder h, double x, double y, String anchor, String cls, String s) {
        h.append("<text x=\"")
                .append(px(x))
                .append("\" y=\"")
                .append(px(y))
                .append("\" text-anchor=\"")
                .append(anchor)
                .append("\" font-size=\"13\" fill=\"")
                .append(INK)
                .append("\" class=\"")
                .append(cls)
                .append("\">")
                .append(HtmlReporter.esc(s))
                .append("</text>");
    }

    private static void rect(
            StringBuilder h, double x, double y, double w, double ht, String fill, String data) {
        h.append("<rect x=\"")
                .append(px(x))
                .append("\" y=\"")
                .append(px(y))
                .append("\" width=\"")
                .append(px(Math.max(0, w)))
                .append("\" height=\"")
                .append(px(ht))
                .append("\" fill=\"")
                .append(fill)
                .append('"')
                .append(data)
                .append("/>");
    }

    private static String close(StringBuilder h, String caption) {
        return h.append("</svg><figcaption>")
                .append(HtmlReporter.esc(caption))
                .append("</figcaption></figure>\n")
                .toString();
    }

    /**
     * IL-0264: the frontend's maxconn slots as one bar, what one tarpitting client holds of them,
     * what it wants beyond them, and what is left for everyone else.
     */
    static String slots(Figure.Slots s) {
        Figure.ProcessSlots p = s.process();
        double scale = Math.max(Math.max(s.slots(), s.wanted()), p == null ? 0 : p.maxconn());
        double unit = W / Math.max(1, scale);
        long free = Math.max(0, s.slots() - s.held());
        int more = p == null ? 0 : p.otherFrontends() - p.others().size();
        int height = p == null ? 150 : 150 + 125 + 20 * p.others().size() + (more > 0 ? 20 : 0);
        StringBuilder h = open("slots", slotsDescription(s), height);
        title(h, "Connection slots of " + s.frontend() + " (maxconn " + s.slots() + ")");
        rect(h, 20, 40, s.slots() * unit, 44, GREY, " data-slots=\"" + s.slots() + "\"");
        rect(h, 20, 40, s.held() * unit, 44, RED, " data-held=\"" + s.held() + "\"");
        if (s.wanted() > s.slots()) {
            h.append("<rect x=\"")
                    .append(px(20 + s.slots() * unit))
                    .append("\" y=\"40\" width=\"")
                    .append(px((s.wanted() - s.slots()) * unit))
                    .append("\" height=\"44\" fill=\"none\" stroke=\"")
                    .append(RED)
                    .append("\" stroke-dasharray=\"5 4\" data-wanted=\"")
                    .append(s.wanted())
                    .append("\"/>");
        }
        // under the bar: the limit's label at its tick, then the two lines of figures (below the
        // label, so that neither runs into the other whatever the tick's place)
        double tick = 20 + s.slots() * unit;
        text(
                h,
                tick,
                104,
                tick < 70 ? "start" : tick > 610 ? "end" : "middle",
                "t-limit",
                "maxconn " + s.slots());
        text(
                h,
                20,
                128,
                "start",
                "t-held",
                "one client at "
                        + s.rps()
                        + " req/s, each held "
                        + num(s.holdMillis() / 1000.0)
                        + " s: "
                        + s.held()
                        + " slots held"
                        + (s.wanted() > s.held() ? " (wants " + s.wanted() + ")" : ""));
        text(h, 20, 148, "start", "t-free", free + " slots left for every other client");
        h.append("<line x1=\"")
                .append(px(20 + s.slots() * unit))
                .append("\" y1=\"32\" x2=\"")
                .append(px(20 + s.slots() * unit))
                .append("\" y2=\"92\" stroke=\"")
                .append(INK)
                .append("\" stroke-width=\"2\"/>");
        if (p != null) {
            process(h, p, unit);
        }
        return close(h, slotsCaption(s, free));
    }

    /** The slots figure's description: what one client holds, and what the process has left. */
    private static String slotsDescription(Figure.Slots s) {
        Figure.ProcessSlots p = s.process();
        return "Connection slots of "
                + s.frontend()
                + ": one client holds "
                + s.held()
                + " of "
                + s.slots()
                + (p == null
                        ? ""
                        : "; of the process's global maxconn "
                                + p.maxconn()
                                + ", "
                                + p.left()
                                + " are left for the other frontends");
    }

    /** The slots figure's caption: what the red, dashed, grey (and blue) parts stand for. */
    private static String slotsCaption(Figure.Slots s, long free) {
        Figure.ProcessSlots p = s.process();
        return "Red: slots the tarpitting client holds ("
                + s.held()
                + " of "
                + s.slots()
                + (s.wanted() > s.slots()
                        ? "; dashed: the " + (s.wanted() - s.slots()) + " more it wants"
                        : "")
                + "); grey: slots left for legitimate clients ("
                + free
                + ")."
                + (p == null
                        ? ""
                        : " Lower bar, on the same scale: the process's global maxconn ("
                                + p.maxconn()
                                + "), which HAProxy counts over every frontend; blue: the "
                                + p.left()
                                + " left for the "
                                + p.otherFrontends()
                                + (p.otherFrontends() == 1
                                        ? " other frontend."
                                        : " other frontends together."));
    }

    /** The process-wide bar of the slots figure: held, left for the other frontends, and them. */
    private static void process(StringBuilder h, Figure.ProcessSlots p, double unit) {
        double y = 176;
        text(
                h,
                20,
                y,
                "start",
                "t-process",
                "Process: global maxconn " + p.maxconn() + ", shared by every frontend");
        rect(
                h,
                20,
                y + 12,
                p.maxconn() * unit,
                36,
                GREY,
                " data-process-slots=\"" + p.maxconn() + "\"");
        rect(h, 20, y + 12, p.held() * unit, 36, RED, " data-process-held=\"" + p.held() + "\"");
        rect(
                h,
                20 + p.held() * unit,
                y + 12,
                p.left() * unit,
                36,
                BLUE,
                " data-process-left=\"" + p.left() + "\"");
        text(
                h,
                20,
                y + 68,
                "start",
                "t-process-left",
                p.held() + " held by this client, " + p.left() + " left for the other frontends:");
        double ry = y + 90;
        for (Figure.Share o : p.others()) {
            rect(
                    h,
                    28,
                    ry - 11,
                    12,
                    12,
                    BLUE,
                    " data-share=\""
                            + HtmlReporter.esc(o.frontend())
                            + "\" data-maxconn=\""
                            + o.maxconn()
                            + "\" data-can-get=\""
                            + o.canGet()
                            + "\"");
            text(
                    h,
                    48,
                    ry,
                    "start",
                    "t-share",
                    o.frontend()
                            + ": "
                            + (o.maxconn() < 0 ? "maxconn unreadable" : "maxconn " + o.maxconn())
                            + ", can get "
                            + o.canGet());
            ry += 20;
        }
        int more = p.otherFrontends() - p.others().size();
        if (more > 0) {
            text(h, 48, ry, "start", "t-share-more", "and " + more + " more");
        }
    }

    /**
     * IL-0495: each probe's failure window on one time axis, against the stall the rule asks a
     * probe to outlast; a window shorter than the stall fails the probe on every replica at once.
     */
    static String probes(Figure.ProbeWindows p) {
        int longest = p.stallSeconds();
        for (Figure.Window w : p.windows()) {
            longest = Math.max(longest, w.seconds());
        }
        double max = longest * 1.15;
        double unit = (W - 360) / Math.max(1, max);
        int rows = p.windows().size();
        int height = 70 + rows * 44 + 30;
        StringBuilder h =
                open(
                        "probes",
                        "Probe failure windows of "
                                + p.workload()
                                + " against a "
                                + p.stallSeconds()
                                + " s stall",
                        height);
        title(h, "Probe windows of " + p.workload());
        double x0 = 160;
        double y = 50;
        for (Figure.Window w : p.windows()) {
            window(h, p, w, x0, y, unit);
            y += 44;
        }
        stallAndAxis(h, p, x0, y, max, unit);
        return close(
                h,
                "Each bar: how long a stall the probe survives (failureThreshold x periodSeconds + timeoutSeconds);"
                        + " dashed line: the "
                        + p.stallSeconds()
                        + " s stall the rule asks it to outlast. A red bar ends"
                        + " inside the stall: the probe fails there on every replica at once.");
    }

    /**
     * One probe's row at {@code y}: its name, its window's bar (red when the stall outlasts it).
     */
    private static void window(
            StringBuilder h,
            Figure.ProbeWindows p,
            Figure.Window w,
            double x0,
            double y,
            double unit) {
        boolean fails = w.seconds() < p.stallSeconds();
        text(h, x0 - 10, y + 20, "end", "t-probe", w.probe());
        rect(
                h,
                x0,
                y + 4,
                w.seconds() * unit,
                24,
                fails ? RED : BLUE,
                " data-probe=\""
                        + HtmlReporter.esc(w.probe())
                        + "\" data-seconds=\""
                        + w.seconds()
                        + "\"");
        text(
                h,
                x0 + Math.max(w.seconds(), fails ? p.stallSeconds() : 0) * unit + 8,
                y + 21,
                "start",
                "t-window",
                w.seconds()
                        + " s"
                        + (fails
                                ? ": "
                                        + w.effect()
                                        + (p.replicas() == null
                                                ? ""
                                                : " on all " + p.replicas() + " replicas")
                                : ""));
    }

    /** The stall's dashed line and label below the rows ending at {@code y}, then the time axis. */
    private static void stallAndAxis(
            StringBuilder h, Figure.ProbeWindows p, double x0, double y, double max, double unit) {
        double sx = x0 + p.stallSeconds() * unit;
        h.append("<line x1=\"")
                .append(px(sx))
                .append("\" y1=\"40\" x2=\"")
                .append(px(sx))
                .append("\" y2=\"")
                .append(px(y + 4))
                .append("\" stroke=\"")
                .append(AMBER)
                .append("\" stroke-width=\"3\" stroke-dasharray=\"6 4\" data-stall=\"")
                .append(p.stallSeconds())
                .append("\"/>");
        text(h, sx, y + 22, "middle", "t-stall", "stall of " + p.stallSeconds() + " s");
        // the time axis
        h.append("<line x1=\"")
                .append(px(x0))
                .append("\" y1=\"")
                .append(px(y + 4))
                .append("\" x2=\"")
                .append(px(x0 + max * unit))
                .append("\" y2=\"")
                .append(px(y + 4))
                .append("\" stroke=\"")
                .append(INK)
                .append("\"/>");
        text(h, x0, y + 22, "middle", "t-axis", "0 s");
    }

    /** IL-0364: healthy targets per Availability Zone; a zone with none is red. */
    static String zones(Figure.ZoneTargets z) {
        int most = 1;
        for (Figure.Zone x : z.zones()) {
            most = Math.max(most, Math.max(x.registered(), x.healthy()));
        }
        double unit = (W - 330) / (double) most;
        int height = 50 + z.zones().size() * 36 + 20;
        StringBuilder h =
                open(
                        "zones",
                        "Healthy targets per zone of "
                                + z.loadBalancer()
                                + ", target group "
                                + z.targetGroup(),
                        height);
        title(h, "Healthy targets per zone, target group " + z.targetGroup());
        double y = 40;
        for (Figure.Zone x : z.zones()) {
            text(h, 150, y + 18, "end", "t-zone", x.name());
            rect(
                    h,
                    160,
                    y + 2,
                    x.registered() * unit,
                    24,
                    GREY,
                    " data-zone=\""
                            + HtmlReporter.esc(x.name())
                            + "\" data-registered=\""
                            + x.registered()
                            + "\"");
            rect(
                    h,
                    160,
                    y + 2,
                    x.healthy() * unit,
                    24,
                    x.healthy() == 0 ? RED : BLUE,
                    " data-healthy=\"" + x.healthy() + "\"");
            text(
                    h,
                    160 + Math.max(x.registered(), x.healthy()) * unit + 8,
                    y + 19,
                    "start",
                    "t-count",
                    x.healthy()
                            + " of "
                            + x.registered()
                            + " healthy"
                            + (x.healthy() == 0 ? ": its clients fail" : ""));
            y += 36;
        }
        return close(
                h,
                "Blue: healthy targets; grey: targets registered in the zone. Cross-zone load balancing is off, so a"
                        + " zone without a healthy target fails the clients that resolve its address.");
    }

    /** Live saturation: the peak against the limit, with the rule's warning and high thresholds. */
    static String saturation(Figure.Saturation s) {
        double unit = (W - 40) / Math.max(1, Math.max(s.peak(), s.limit()));
        boolean high = s.peak() * 100 >= (double) s.highPercent() * s.limit();
        String who = s.proxy() + " at " + s.instance();
        StringBuilder h =
                open(
                        "saturation",
                        "Peak " + num(s.peak()) + " of " + num(s.limit()) + ", " + who,
                        120);
        title(h, who + ": peak " + num(s.peak()) + " of " + num(s.limit()));
        rect(h, 20, 36, s.limit() * unit, 36, GREY, " data-limit=\"" + num(s.limit()) + "\"");
        rect(
                h,
                20,
                36,
                s.peak() * unit,
                36,
                high ? RED : AMBER,
                " data-peak=\"" + num(s.peak()) + "\"");
        for (int pct : new int[] {s.warnPercent(), s.highPercent()}) {
            double x = 20 + s.limit() * pct / 100.0 * unit;
            h.append("<line x1=\"")
                    .append(px(x))
                    .append("\" y1=\"30\" x2=\"")
                    .append(px(x))
                    .append("\" y2=\"78\" stroke=\"")
                    .append(INK)
                    .append("\" stroke-dasharray=\"3 3\"/>");
            text(h, x, 94, "middle", "t-threshold", pct + "%");
        }
        text(h, 20 + s.limit() * unit, 112, "end", "t-limit", "limit " + num(s.limit()));
        return close(
                h,
                "The peak ("
                        + num(s.peak())
                        + ") against the limit ("
                        + num(s.limit())
                        + "); dashed: the rule's "
                        + s.warnPercent()
                        + "% and "
                        + s.highPercent()
                        + "% thresholds.");
    }
}
