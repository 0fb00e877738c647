package dev.deja.report;

import dev.deja.engine.Figure;
import java.util.List;
import java.util.function.Predicate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A finding's {@link Figure} in the JSON report (schema 1.4, a finding's {@code figure}): {@code
 * kind} ("slots", "probes", "zones", "saturation", as the HTML report's {@code data-figure}) and
 * the record's own fields by name, so that a report read back ({@code deja report merge}) draws the
 * same pictures. Jackson maps the records both ways; a figure read back is checked (every field
 * there, no negative count, bounded lists) and refused with a reason otherwise.
 */
final class FigureJson {
    private FigureJson() {}

    /** More windows, zones or frontends than any rule gives: a figure with more is refused. */
    static final int MAX_ITEMS = 1000;

    private static final JsonMapper JSON =
            JsonMapper.builder()
                    .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                    .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
                    .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                    .build();

    /** The figure's kind, as the JSON report and the HTML report's data-figure name it. */
    static String kind(Figure f) {
        if (f instanceof Figure.Slots) {
            return "slots";
        }
        if (f instanceof Figure.ProbeWindows) {
            return "probes";
        }
        if (f instanceof Figure.ZoneTargets) {
            return "zones";
        }
        return "saturation";
    }

    private static Class<? extends Figure> type(String kind) {
        return switch (kind) {
            case "slots" -> Figure.Slots.class;
            case "probes" -> Figure.ProbeWindows.class;
            case "zones" -> Figure.ZoneTargets.class;
            case "saturation" -> Figure.Saturation.class;
            default -> null;
        };
    }

    /**
     * {"kind": ..., then the record's fields}, as a tree made by Jackson from the record (the
     * reference {@link #write} is held to, FigureJsonTest).
     */
    static ObjectNode json(Figure f) {
        ObjectNode n = JSON.createObjectNode();
        n.put("kind", kind(f));
        n.setAll((ObjectNode) JSON.valueToTree(f));
        return n;
    }

    /**
     * The same object as {@link #json}, written member by member: Jackson's tree of a record costs
     * ~70 us a figure in a short-lived JVM (2,500 tarpit findings: a fifth of the scan's CPU
     * samples, JFR), this a few. Members in the records' component order, as Jackson writes a
     * record; nulls written as null.
     */
    static void write(Figure f, JsonOut o) {
        o.startObject().put("kind", kind(f));
        if (f instanceof Figure.Slots s) {
            o.put("frontend", s.frontend())
                    .put("slots", s.slots())
                    .put("held", s.held())
                    .put("wanted", s.wanted())
                    .put("rps", s.rps())
                    .put("holdMillis", s.holdMillis())
                    .name("process");
            Figure.ProcessSlots p = s.process();
            if (p == null) {
                o.string(null);
            } else {
                o.startObject()
                        .put("maxconn", p.maxconn())
                        .put("held", p.held())
                        .put("left", p.left())
                        .put("otherFrontends", p.otherFrontends())
                        .startArray("others");
                for (Figure.Share x : p.others()) {
                    o.startObject()
                            .put("frontend", x.frontend())
                            .put("maxconn", x.maxconn())
                            .put("canGet", x.canGet())
                            .endObject();
                }
                o.endArray().endObject();
            }
        } else if (f instanceof Figure.ProbeWindows w) {
            o.put("workload", w.workload()).put("stallSeconds", w.stallSeconds());
            o.name("replicas");
            if (w.replicas() == null) {
                o.string(null);
            } else {
                o.number(w.replicas().intValue());
            }
            o.startArray("windows");
            for (Figure.Window x : w.windows()) {
                o.startObject()
                        .put("probe", x.probe())
                        .put("seconds", x.seconds())
                        .put("effect", x.effect())
                        .endObject();
            }
            o.endArray();
        } else if (f instanceof Figure.ZoneTargets z) {
            o.put("loadBalancer", z.loadBalancer()).put("targetGroup", z.targetGroup());
            o.startArray("zones");
            for (Figure.Zone x : z.zones()) {
                o.startObject()
                        .put("name", x.name())
                        .put("healthy", x.healthy())
                        .put("registered", x.registered())
                        .endObject();
            }
            o.endArray();
        } else if (f instanceof Figure.Saturation x) {
            JsonNodeFactory n = JsonNodeFactory.instance;
            o.put("proxy", x.proxy()).put("instance", x.instance());
            o.name("peak").node(n.numberNode(x.peak()));
            o.name("limit").node(n.numberNode(x.limit()));
            o.put("warnPercent", x.warnPercent()).put("highPercent", x.highPercent());
        }
        o.endObject();
    }

    /** Why a figure read back cannot be drawn. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String why) {
            super(why);
        }
    }

    /** The figure of a report's finding; throws with the reason when it is not one deja wrote. */
    static Figure read(JsonNode n) throws Unreadable {
        if (!n.isObject()) {
            throw new Unreadable("figure is not an object");
        }
        String kind = n.path("kind").asString("");
        Class<? extends Figure> type = type(kind);
        if (type == null) {
            throw new Unreadable(
                    "figure kind '"
                            + shorten(kind)
                            + "' is not one of slots, probes, zones, saturation");
        }
        ObjectNode fields = ((ObjectNode) n).deepCopy();
        fields.remove("kind");
        Figure f;
        try {
            f = JSON.treeToValue(fields, type);
        } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
            throw new Unreadable("figure " + kind + ": " + firstLine(e.getMessage()));
        }
        String bad = check(f);
        if (bad != null) {
            throw new Unreadable("figure " + kind + ": " + bad);
        }
        return f;
    }

    /** At most 80 characters of untrusted text, control characters shown as '?'. */
    private static String shorten(String s) {
        String t = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        StringBuilder sb = new StringBuilder(t.length());
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            sb.append(Character.isISOControl(c) ? '?' : c);
        }
        return sb.toString();
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "malformed";
        }
        int nl = s.indexOf('\n');
        return shorten(nl < 0 ? s : s.substring(0, nl));
    }

    /** What is wrong with a figure read back, or null. */
    static String check(Figure f) {
        if (f instanceof Figure.Slots s) {
            if (s.frontend() == null) {
                return "no frontend";
            }
            if (s.slots() < 0
                    || s.held() < 0
                    || s.wanted() < 0
                    || s.rps() < 0
                    || s.holdMillis() < 0) {
                return "a negative count";
            }
            Figure.ProcessSlots p = s.process();
            if (p != null) {
                if (p.maxconn() < 0 || p.held() < 0 || p.left() < 0 || p.otherFrontends() < 0) {
                    return "a negative count";
                }
                if (p.others().size() > MAX_ITEMS) {
                    return "more than " + MAX_ITEMS + " frontends";
                }
                for (Figure.Share o : p.others()) {
                    if (o == null || o.frontend() == null || o.canGet() < 0) {
                        return "a frontend without a name or with a negative count";
                    }
                }
            }
            return null;
        }
        if (f instanceof Figure.ProbeWindows p) {
            if (p.workload() == null || p.stallSeconds() < 0) {
                return "no workload, or a negative stall";
            }
            return items(p.windows(), w -> w.probe() == null || w.seconds() < 0);
        }
        if (f instanceof Figure.ZoneTargets z) {
            if (z.loadBalancer() == null || z.targetGroup() == null) {
                return "no load balancer or target group";
            }
            return items(z.zones(), x -> x.name() == null || x.healthy() < 0 || x.registered() < 0);
        }
        Figure.Saturation s = (Figure.Saturation) f;
        if (s.proxy() == null || s.instance() == null) {
            return "no proxy or instance";
        }
        if (!(s.peak() >= 0)
                || !(s.limit() >= 0)
                || !Double.isFinite(s.peak())
                || !Double.isFinite(s.limit())
                || s.warnPercent() < 0
                || s.highPercent() < 0) {
            return "a negative or missing number";
        }
        return null;
    }

    private static <T> String items(List<T> list, Predicate<T> bad) {
        if (list.size() > MAX_ITEMS) {
            return "more than " + MAX_ITEMS + " items";
        }
        for (T t : list) {
            if (t == null || bad.test(t)) {
                return "an item without a name or with a negative number";
            }
        }
        return null;
    }
}
